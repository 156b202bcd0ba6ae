// The audit entries of the changes that are not a move or an edit (those two write theirs in their
// one write statement: store/moves.ts, store/event-edits.ts). Each runs in the caller's
// transaction, so the entry commits with its change or not at all. An entry names the change by
// ids, step ids, amounts and field values, never by directory personal data (names, e-mails).
import {
  chainEntry,
  DIRECTORY_CHAIN,
  portalChain,
  type HashedEntry,
  staffChain,
  subscriptionChain,
  TOKENS_CHAIN,
  journeyChain,
  workflowChain,
} from '../domain/audit.ts';
import type { AuditEntryType } from '../domain/audit.ts';
import type { SubscriptionInput } from '../domain/subscription.ts';
import { actorOf, type Principal } from '../domain/principal.ts';
import type { Workflow } from '../domain/workflow.ts';
import { appendToChain, appendToJourneyChain, appendToWorkflowChain } from '../store/audit.ts';
import type { Db } from '../store/schema.ts';
import type { StepWithTriggers } from './step-triggers.ts';

/** Who acts when no request does: the CLI, seeding, the first run. */
export const SYSTEM_PRINCIPAL: Principal = { userId: 'system', role: 'admin', tokenKey: 'system' };

const who = (principal: Principal) => ({ principal: actorOf(principal), tokenId: principal.tokenKey });

/** JSON as the database will hand it back (no undefined members), so the hash recomputes. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export async function recordWorkflowApplied(db: Db, principal: Principal, workflow: Workflow, triggers: StepWithTriggers[], at: Date) {
  await appendToWorkflowChain(db, workflow.dealId, {
    chain: workflowChain(workflow.dealId),
    type: 'workflow.applied',
    ...who(principal),
    at: at.toISOString(),
    change: plain({
      dealId: workflow.dealId,
      workflowId: workflow.id,
      version: workflow.version,
      label: workflow.label,
      steps: workflow.steps,
      links: workflow.links,
      // Receivers, not secrets: a secret in the log could never be erased.
      triggers: triggers.map((s) => ({ stepId: s.stepId, triggers: s.triggers.map((t) => ({ kind: t.kind, url: t.url, events: t.events })) })),
    }),
  });
}

export async function recordEditRequestDecided(
  db: Db,
  principal: Principal,
  request: { id: string; dealId: string; investorUserId: string; workflowEventId: string; type: string; newData: unknown },
  decision: { status: string; reason: string | null },
  at: Date,
) {
  await appendToJourneyChain(
    db,
    { dealId: request.dealId, investorUserId: request.investorUserId },
    {
      chain: journeyChain(request.dealId, request.investorUserId),
      type: 'edit-request.decided',
      ...who(principal),
      at: at.toISOString(),
      change: plain({
        editRequestId: request.id,
        dealId: request.dealId,
        investorUserId: request.investorUserId,
        eventId: request.workflowEventId,
        requestType: request.type,
        newData: request.newData ?? null,
        status: decision.status,
        reason: decision.reason,
      }),
    },
  );
}

export async function recordTokenChange(
  db: Db,
  principal: Principal,
  type: 'token.created' | 'token.revoked',
  token: { id: string; role?: string; investorUserId?: string | null; personId?: string; reason?: 'erased' | 'deactivated' },
  at: Date,
) {
  await appendToChain(db, {
    chain: TOKENS_CHAIN,
    type,
    ...who(principal),
    at: at.toISOString(),
    change: plain({
      tokenId: token.id,
      role: token.role ?? null,
      investorUserId: token.investorUserId ?? null,
      ...(token.personId ? { personId: token.personId } : {}),
      ...(token.reason ? { reason: token.reason } : {}),
    }),
  });
}

/** An investor's portal access changed: invitations, passkeys, sign-ins and sign-outs, in the investor's portal chain. */
export async function recordPortalChange(
  db: Db,
  by: { principal: string; tokenId: string | null },
  type: Extract<AuditEntryType, `portal.${string}`>,
  investorUserId: string,
  change: Record<string, unknown>,
  at: Date,
) {
  await appendToChain(db, { chain: portalChain(investorUserId), type, ...by, at: at.toISOString(), change: plain({ investorUserId, ...change }) });
}

/** A staff person changed (added, role changed, deactivated) or their console access did, in their chain `staff:<id>`. */
export async function recordStaffChange(
  db: Db,
  by: { principal: string; tokenId: string | null },
  type: Extract<AuditEntryType, `staff.${string}`>,
  personId: string,
  change: Record<string, unknown>,
  at: Date,
) {
  await appendToChain(db, { chain: staffChain(personId), type, ...by, at: at.toISOString(), change: plain({ personId, ...change }) });
}

export async function recordErasure(
  db: Db,
  principal: Principal,
  change: { investorUserId: string; lastEventAt: string | null; override: boolean; reason: string | null; evidence: Record<string, number> },
  at: Date,
) {
  await appendToChain(db, { chain: DIRECTORY_CHAIN, type: 'investor.erased', ...who(principal), at: at.toISOString(), change: plain(change) });
}

/**
 * A subscription booking's entry. It forms a chain of its own (`subscription:<id>`, one entry), so
 * the booking stays one statement and takes no lock; the checkpoints order it among all others.
 * The free-text description is left out (it may name a person).
 */
export function bookingAuditEntry(principal: Principal, id: string, s: SubscriptionInput, at: Date): HashedEntry {
  return chainEntry(
    { seq: 0, hash: null },
    {
      chain: subscriptionChain(id),
      type: 'subscription.booked',
      ...who(principal),
      at: at.toISOString(),
      change: {
        subscriptionId: id,
        assetId: s.assetId,
        investorUserId: s.investorId,
        units: s.units,
        pricePerUnit: s.pricePerUnit,
        total: s.total,
        fee: s.fee,
        fundingSource: s.fundingSource,
        invoiceDate: s.invoiceDate,
        settlementDate: s.settlementDate,
        source: s.source,
        sourceId: s.sourceId,
      },
    },
  );
}
