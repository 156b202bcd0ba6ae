// My deals: each deal the investor is in, where they stand, their commitment and what is left to pay.
import { href, useLoad } from '../../../kit/hooks.ts';
import { portalApi, type InvestorDeal, type Session } from '../lib/api.ts';
import { formatMoneyForReader } from '../../../kit/format.ts';
import { m } from '../messages.ts';
import { ErrorBox, Spinner } from '../components/ui.tsx';
import './DealsPage.css';

/** Whether the investor may take a next step themselves now. */
export const mayAct = (deal: InvestorDeal) => deal.investorEngagementEnabled && deal.nextSteps.some((s) => s.investorMay);

export function DealsPage({ session }: { session: Session }) {
  const [deals, retry] = useLoad(() => portalApi.deals(session.investorUserId), [session.investorUserId]);
  return (
    <section aria-labelledby="deals-title">
      <h1 id="deals-title">{m.dealsTitle}</h1>
      {deals.status === 'loading' && <Spinner />}
      {deals.status === 'error' && <ErrorBox error={deals.error} retry={retry} />}
      {deals.status === 'ready' && deals.value.deals.length === 0 && <p className="notice">{m.dealsEmpty}</p>}
      {deals.status === 'ready' && deals.value.deals.length > 0 && (
        <ul className="deal-list">
          {deals.value.deals.map((deal) => (
            <li key={deal.dealId} className="card deal-item">
              <h2>
                <a href={href('deals', deal.dealId)} aria-label={m.openDeal(deal.dealName)}>
                  {deal.dealName}
                </a>
              </h2>
              <dl className="facts">
                <div>
                  <dt>{m.currentStep}</dt>
                  <dd>{deal.currentStep?.label ?? m.notStarted}</dd>
                </div>
                {deal.commitment && (
                  <div>
                    <dt>{m.committed}</dt>
                    <dd className="money">{formatMoneyForReader(deal.commitment.amount, deal.commitment.currency)}</dd>
                  </div>
                )}
                {deal.payment?.remaining && (
                  <div>
                    <dt>{m.remaining}</dt>
                    <dd className="money">{formatMoneyForReader(deal.payment.remaining, deal.payment.currency)}</dd>
                  </div>
                )}
              </dl>
              {mayAct(deal) && <p className="badge badge-action">{m.actionWaiting}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
