// The deal the payment benches run against: a commitment step (amount and currency), a payment step
// (amount received and date) that the deal's payment settings name, optionally a complete step, and
// N investors written in bulk, each committed to an amount under a payment reference of their own.
import type { Investor } from '../src/domain/investor.ts';
import { newPaymentReference } from '../src/domain/payment-reference.ts';
import { putDeal } from '../src/operations/deals.ts';
import { type Deps, newUuid } from '../src/operations/deps.ts';
import { applyPaymentSettings } from '../src/operations/payment-settings.ts';
import { putWorkflow } from '../src/operations/workflows.ts';
import { insertInvestors, insertJourneys } from '../src/store/bulk.ts';

export interface CommittedInvestor {
  id: string;
  /** Forename and surname, separated by the first space. */
  name: string;
  reference: string;
  amount: string;
}

export async function seedCommittedDeal(
  deps: Deps,
  deal: { id: string; name: string; withComplete: boolean },
  investors: readonly { id: string; name: string; amount: string }[],
): Promise<CommittedInvestor[]> {
  const s = (name: string) => `${deal.id}.${name}`;
  await putDeal(deps, deal.id, { name: deal.name, currency: 'EUR' });
  await putWorkflow(deps, deal.id, {
    label: deal.name,
    description: `commitment, payment${deal.withComplete ? ', complete' : ''}`,
    investorEngagementEnabled: deal.withComplete,
    steps: [
      {
        id: s('commitment'),
        label: 'Commitment',
        type: 'default',
        requirements: [],
        formId: null,
        stepFields: [
          { fieldKey: 'committed_amount', required: true, kind: 'amount', label: null, options: null },
          { fieldKey: 'currency', required: true, kind: 'currency', label: null, options: null },
        ],
      },
      {
        id: s('payment'),
        label: 'Funds received',
        type: 'default',
        requirements: [],
        formId: null,
        stepFields: [
          { fieldKey: 'amount_received', required: true, kind: 'amount', label: null, options: null },
          { fieldKey: 'received_on', required: true, kind: 'date', label: null, options: null },
        ],
      },
      ...(deal.withComplete ? [{ id: s('complete'), label: 'Complete', type: 'complete', requirements: [], formId: null, stepFields: [] }] : []),
    ],
    links: [
      { fromStepId: s('commitment'), toStepId: s('payment'), investorMay: false },
      ...(deal.withComplete ? [{ fromStepId: s('payment'), toStepId: s('complete'), investorMay: false }] : []),
    ],
  } as Parameters<typeof putWorkflow>[2]);
  await applyPaymentSettings(deps, deal.id, { paymentStepId: s('payment'), amountFieldKey: 'amount_received', dateFieldKey: 'received_on' });

  const now = new Date();
  const used = new Set<string>();
  const people = investors.map((p) => {
    let reference: string;
    do reference = newPaymentReference(() => Math.floor(Math.random() * 10));
    while (used.has(reference));
    used.add(reference);
    return { ...p, reference };
  });
  for (let i = 0; i < people.length; i += 1000) {
    const chunk = people.slice(i, i + 1000);
    const rows: Investor[] = chunk.map((p) => {
      const [forename, ...rest] = p.name.split(' ');
      return {
        id: p.id,
        remoteId: p.id,
        dataSource: 'bench',
        teamUserId: null,
        kycCheckLevel: 2,
        contact: {
          guid: p.id,
          externalId: null,
          userType: 1,
          status: 'active',
          username: p.id,
          profilePhotoFileKey: null,
          name: p.name,
          fullName: p.name,
          contact: {
            forename: forename!,
            middleNames: null,
            surname: rest.join(' ') || p.id,
            title: null,
            nickname: null,
            dateOfBirth: null,
            email: `${p.id}@example.com`,
          },
          classifications: [],
          tfaEnabled: false,
          compliance: 'approved',
        },
      };
    });
    await insertInvestors(deps.db, rows, now);
    await insertJourneys(
      deps.db,
      chunk.map((p) => ({
        dealId: deal.id,
        investorUserId: p.id,
        paymentReference: p.reference,
        events: [
          {
            id: newUuid(),
            fromStepId: null,
            toStepId: s('commitment'),
            data: { committed_amount: p.amount, currency: 'EUR' },
            createdByUserId: 'bench',
            createdAt: now.toISOString(),
            dealId: deal.id,
            investorUserId: p.id,
            seq: 1,
          },
        ],
      })),
    );
  }
  return people;
}
