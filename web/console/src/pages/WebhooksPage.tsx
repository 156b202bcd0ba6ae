// Webhook deliveries, newest first: status, attempts, the last answer, and a retry for deliveries
// that are pending or dead.
import { TableRegion } from '../components/PagedTable.tsx';
import { useState } from 'react';
import { consoleApi, describeError, type Delivery } from '../lib/api.ts';
import { useLoad } from '../../../kit/hooks.ts';
import { Pager } from '../components/Pager.tsx';
import { Badge, Empty, Pending, When } from '../components/ui.tsx';
import { useRoleGate } from '../lib/who.ts';
import './WebhooksPage.css';

const tone = (status: Delivery['status']) => (status === 'delivered' ? 'green' : status === 'dead' ? 'red' : 'amber');

export function WebhooksPage() {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [deliveries, reload] = useLoad(() => consoleApi.deliveries(status || undefined, page), [status, page, version]);
  const [notice, setNotice] = useState<string>();
  const retryGate = useRoleGate('admin');

  async function retry(delivery: Delivery) {
    try {
      await consoleApi.retryDelivery(delivery.id);
      setNotice(`Delivery to ${delivery.url} is due again now.`);
      setVersion((v) => v + 1);
    } catch (error) {
      setNotice(`Could not retry: ${describeError(error)}`);
    }
  }

  return (
    <section aria-labelledby="webhooks-title">
      <div className="page-head">
        <div>
          <h1 id="webhooks-title">Webhook deliveries</h1>
          <p className="muted">Each event sent to each step trigger's URL, newest first.</p>
        </div>
      </div>
      <div className="toolbar">
        <label className="inline-field">
          <span>Status</span>
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value);
              setPage(1);
            }}
          >
            <option value="">Any</option>
            <option value="pending">pending</option>
            <option value="delivered">delivered</option>
            <option value="dead">dead</option>
          </select>
        </label>
        <button type="button" className="button" onClick={() => setVersion((v) => v + 1)}>
          Refresh
        </button>
      </div>
      {notice && (
        <div className="toast" role="status">
          {notice}
        </div>
      )}
      <Pending state={deliveries} retry={reload} />
      {deliveries.status === 'ready' && deliveries.value.output.length === 0 && (
        <Empty title="No deliveries">Step triggers of a workflow send webhooks when investors move.</Empty>
      )}
      {deliveries.status === 'ready' && deliveries.value.output.length > 0 && (
        <>
          <TableRegion
            label="Deliveries"
            className="deliveries-table"
            head={
              <tr>
                <th scope="col">Event</th>
                <th scope="col">URL</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Last answer</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            }
          >
            {deliveries.value.output.map((d) => (
              <tr key={d.id}>
                <td data-label="Event">
                  {d.eventType}
                  <div className="muted small">
                    <When iso={d.createdAt} />
                    {d.dealId ? ` · ${d.dealId}` : ''}
                  </div>
                </td>
                <td data-label="URL" className="break">
                  {d.url}
                </td>
                <td data-label="Status">
                  <Badge tone={tone(d.status)}>{d.status}</Badge>
                </td>
                <td className="num" data-label="Attempts">
                  {d.attempts}
                </td>
                <td data-label="Last answer" className="break">
                  {d.lastStatus ?? d.lastError ?? '—'}
                  {d.lastAttemptAt && (
                    <div className="muted small">
                      <When iso={d.lastAttemptAt} />
                    </div>
                  )}
                </td>
                <td data-label="Next attempt">{d.nextAttemptAt ? <When iso={d.nextAttemptAt} /> : '—'}</td>
                <td>
                  {d.status !== 'delivered' && (
                    <button type="button" className="button button-small" onClick={() => retry(d)} {...retryGate}>
                      Retry now
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </TableRegion>
          <Pager page={page} totalPages={deliveries.value.totalPages} onPage={setPage} />
        </>
      )}
    </section>
  );
}
