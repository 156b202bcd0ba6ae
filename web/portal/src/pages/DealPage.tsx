// One deal: where the investor stands and how they got there, what happens next (the form of a
// step they may take themselves), how to pay, and asking for a change.
import { href, useLoad } from '../../../kit/hooks.ts';
import { ApiError, documentHref, portalApi, type InvestorDeal, type Session } from '../lib/api.ts';
import { formatDateTime, formatFileSize, formatMoneyForReader } from '../../../kit/format.ts';
import { useFollowDeal } from '../lib/live.ts';
import { m } from '../messages.ts';
import { ErrorBox, Spinner } from '../components/ui.tsx';
import { StepForm } from '../components/StepForm.tsx';
import { HowToPay } from '../components/HowToPay.tsx';
import { EditRequest } from '../components/EditRequest.tsx';
import { KycCard } from '../components/KycCard.tsx';
import { Agreement } from '../components/Agreement.tsx';
import './DealPage.css';

export function DealPage({ session, dealId }: { session: Session; dealId: string }) {
  const [deal, reload] = useLoad(() => portalApi.deal(session.investorUserId, dealId), [session.investorUserId, dealId]);
  // A payment received or a move by our team shows at once, without a reload.
  useFollowDeal(session.investorUserId, dealId, reload);
  if (deal.status === 'loading') return <Spinner />;
  if (deal.status === 'error') {
    if (deal.error instanceof ApiError && deal.error.status === 404) {
      return (
        <section className="card">
          <h1>{m.dealNotFound}</h1>
          <a className="button" href={href()}>
            {m.back}
          </a>
        </section>
      );
    }
    return <ErrorBox error={deal.error} retry={reload} />;
  }
  const d = deal.value;
  return (
    <article className="deal" aria-labelledby="deal-title">
      <a className="back-link" href={href()}>
        ← {m.back}
      </a>
      <header className="deal-head">
        <h1 id="deal-title">{d.dealName}</h1>
        <p className="muted">{d.workflowLabel}</p>
        <dl className="facts">
          <div>
            <dt>{m.currentStep}</dt>
            <dd data-testid="current-step">{d.currentStep?.label ?? m.notStarted}</dd>
          </div>
          {d.commitment && (
            <div>
              <dt>{m.committed}</dt>
              <dd className="money" data-testid="committed">
                {formatMoneyForReader(d.commitment.amount, d.commitment.currency)}
              </dd>
            </div>
          )}
        </dl>
      </header>
      <div className="deal-columns">
        <div className="deal-main">
          {/* Reloaded when the investor reaches another step: the requests open at the KYC step. */}
          <KycCard key={d.currentStep?.id ?? 'start'} dealId={d.dealId} investorUserId={session.investorUserId} onChange={reload} />
          <Next deal={d} session={session} onDone={reload} />
          <Agreement dealId={d.dealId} investorUserId={session.investorUserId} onSigned={reload} />
          {d.payment && <HowToPay payment={d.payment} />}
          <EditRequest deal={d} onFiled={reload} />
        </div>
        <div className="deal-side">
          {/* Reloaded when the investor reaches another step: what is released to them may change. */}
          <Documents key={d.currentStep?.id ?? 'start'} dealId={d.dealId} />
          <Timeline deal={d} />
        </div>
      </div>
    </article>
  );
}

function Next({ deal, session, onDone }: { deal: InvestorDeal; session: Session; onDone: () => void }) {
  // A terminal exit (withdrawing) is never a "next step": asking to withdraw is below, under
  // "Request an edit", and our team decides it.
  const ahead = deal.nextSteps.filter((s) => s.type !== 'withdrawn');
  const open = deal.investorEngagementEnabled ? ahead.filter((s) => s.investorMay) : [];
  const byStaff = ahead.filter((s) => !open.includes(s));
  return (
    <section className="card next" aria-labelledby="next-title">
      <h2 id="next-title">{m.nextTitle}</h2>
      {deal.currentStep && <p>{m.nowAt(deal.currentStep.label)}</p>}
      {ahead.length === 0 && <p className="muted">{deal.currentStep?.type === 'withdrawn' ? m.nextWithdrawn : m.nextNone}</p>}
      {open.length === 0 && byStaff.length > 0 && (
        <p className="muted">{m.nextByStaff(new Intl.ListFormat(undefined, { type: 'disjunction' }).format(byStaff.map((s) => s.label)))}</p>
      )}
      {open.length > 0 && <p>{m.nextYou}</p>}
      {open.map((step) =>
        step.waitingFor.length > 0 ? (
          <p key={step.id} className="notice" data-testid="step-waits">
            {step.waitingFor.includes('investor-signature') ? m.waitsForSignature(step.label) : m.waitsForCountersignature(step.label)}
          </p>
        ) : (
          <StepForm
            key={`${deal.currentStep?.id ?? 'start'}-${step.id}`}
            dealId={deal.dealId}
            investorUserId={session.investorUserId}
            currentStepId={deal.currentStep?.id ?? null}
            step={step}
            defaultCurrency={deal.commitment?.currency ?? deal.payment?.currency ?? null}
            onDone={onDone}
          />
        ),
      )}
    </section>
  );
}

function Timeline({ deal }: { deal: InvestorDeal }) {
  // The steps before the current one, oldest first, then the current one.
  const steps = [
    ...deal.pastSteps.map((s) => ({ ...s, current: false })),
    ...(deal.currentStep ? [{ stepId: deal.currentStep.id, label: deal.currentStep.label, enteredAt: deal.currentStep.enteredAt, current: true }] : []),
  ];
  return (
    <section className="card timeline-card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">{m.timelineTitle}</h2>
      {steps.length === 0 ? (
        <p className="muted">{m.timelineEmpty}</p>
      ) : (
        <ol className="timeline">
          {steps.map((step) => (
            <li key={`${step.stepId}-${step.enteredAt}`} className={step.current ? 'current' : undefined} aria-current={step.current ? 'step' : undefined}>
              <strong>{step.label}</strong>
              <time className="muted small" dateTime={step.enteredAt}>
                {m.enteredOn(formatDateTime(step.enteredAt))}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The documents our team released to the investor: each a download, with its size and date. */
function Documents({ dealId }: { dealId: string }) {
  const [documents, reload] = useLoad(() => portalApi.documents(dealId), [dealId]);
  if (documents.status === 'loading') return null;
  if (documents.status === 'error') return <ErrorBox error={documents.error} retry={reload} />;
  return (
    <section className="card documents-card" aria-labelledby="documents-title">
      <h2 id="documents-title">{m.documentsTitle}</h2>
      {documents.value.length === 0 ? (
        <p className="muted">{m.documentsEmpty}</p>
      ) : (
        <ul className="documents">
          {documents.value.map((doc) => (
            <li key={doc.id}>
              <a href={documentHref(dealId, doc.id)} download={doc.fileName} aria-label={m.documentDownload(doc.title)}>
                {doc.title}
              </a>
              <span className="muted small">{m.documentSize(formatFileSize(doc.size), formatDateTime(doc.uploadedAt))}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
