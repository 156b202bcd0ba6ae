// A deal's documents: upload a PDF, release it to everyone at or past a step or to one investor
// (found by name or e-mail), download it, and see who opened it. Nothing is released on upload, and
// a release is never withdrawn: a corrected document is a new upload.
import { type FormEvent, useState } from 'react';
import { formatFileSize } from '../../../kit/format.ts';
import { useDebounced, useLoad } from '../../../kit/hooks.ts';
import { Agreements } from '../components/Agreements.tsx';
import { DealHeader } from '../components/DealHeader.tsx';
import { TableRegion } from '../components/PagedTable.tsx';
import { Person } from '../components/Person.tsx';
import { StepOptions } from '../components/SelectOptions.tsx';
import { Empty, FormStatus, Pending, When } from '../components/ui.tsx';
import { api, consoleApi, type DealDocument, describeError, type Workflow } from '../lib/api.ts';
import './DocumentsPage.css';

export function DocumentsPage({ dealId }: { dealId: string }) {
  const [meta, reloadMeta] = useLoad(() => Promise.all([api.deal(dealId), api.workflow(dealId)]), [dealId]);
  const [version, setVersion] = useState(0);
  const [documents, reload] = useLoad(() => consoleApi.documents(dealId), [dealId, version]);
  const [notice, setNotice] = useState<string>();
  const changed = (text: string) => (setNotice(text), setVersion((v) => v + 1));
  if (meta.status !== 'ready') return <Pending state={meta} retry={reloadMeta} />;
  const [deal, workflow] = meta.value;
  const stepLabel = (id: string) => workflow.steps.find((s) => s.id === id)?.label ?? id;
  return (
    <section aria-labelledby="documents-title">
      <DealHeader dealId={dealId} name={deal.name} view="documents" />
      <h2 id="documents-title" className="visually-hidden">
        Documents
      </h2>
      <UploadForm dealId={dealId} onUploaded={(doc) => changed(`${doc.title} is uploaded. Release it to let investors read it.`)} />
      {notice && (
        <div className="toast" role="status">
          {notice}
        </div>
      )}
      <Pending state={documents} retry={reload} />
      {documents.status === 'ready' && documents.value.length === 0 && (
        <Empty title="No documents yet">Upload a PDF above: an information memorandum, a subscription agreement, a side letter.</Empty>
      )}
      {documents.status === 'ready' && documents.value.length > 0 && (
        <TableRegion
          label="Uploaded documents"
          className="documents-table"
          head={
            <tr>
              <th scope="col">Document</th>
              <th scope="col">Released to</th>
              <th scope="col">Opened</th>
              <th scope="col">Release</th>
            </tr>
          }
        >
          {documents.value.map((doc) => (
            <tr key={doc.id} data-document-id={doc.id}>
              <td data-label="Document">
                <button
                  type="button"
                  className="link-button"
                  onClick={() => consoleApi.downloadDocument(dealId, doc).catch((e: unknown) => setNotice(describeError(e)))}
                >
                  {doc.title}
                </button>
                <div className="muted small">
                  PDF, {formatFileSize(doc.size)} · <When iso={doc.uploadedAt} /> by <Person id={doc.uploadedBy} />
                </div>
              </td>
              <td data-label="Released to">
                {(doc.releases ?? []).length === 0 ? (
                  <span className="muted">Nobody yet</span>
                ) : (
                  <ul className="plain-list">
                    {(doc.releases ?? []).map((r) => (
                      <li key={r.id}>{r.stepId ? `Everyone at or past ${stepLabel(r.stepId)}` : (r.investorName ?? r.investorUserId)}</li>
                    ))}
                  </ul>
                )}
              </td>
              <td data-label="Opened">
                <Reads dealId={dealId} doc={doc} />
              </td>
              <td data-label="Release">
                <ReleaseForm dealId={dealId} doc={doc} workflow={workflow} onReleased={(to) => changed(`${doc.title} is released to ${to}.`)} />
              </td>
            </tr>
          ))}
        </TableRegion>
      )}
      <Agreements dealId={dealId} onNotice={setNotice} />
    </section>
  );
}

function UploadForm({ dealId, onUploaded }: { dealId: string; onUploaded: (doc: DealDocument) => void }) {
  const [title, setTitle] = useState('');
  const [file, setFile] = useState<File>();
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setState({ busy: true });
    try {
      const doc = await consoleApi.uploadDocument(dealId, title.trim() || file.name.replace(/\.pdf$/i, ''), file);
      (event.target as HTMLFormElement).reset();
      setTitle('');
      setFile(undefined);
      setState({ busy: false });
      onUploaded(doc);
    } catch (error) {
      setState({ busy: false, error: describeError(error) });
    }
  }
  return (
    <form className="form-card upload-form" onSubmit={submit} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a document</h2>
      <div className="field-pair">
        <label className="field">
          <span className="field-label">PDF (up to 64 MB)</span>
          <input type="file" accept="application/pdf" required onChange={(e) => setFile(e.target.files?.[0])} />
        </label>
        <label className="field">
          <span className="field-label">Title (the file's name when empty)</span>
          <input value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} />
        </label>
      </div>
      <button type="submit" className="button button-primary" disabled={!file || state.busy}>
        {state.busy ? 'Uploading…' : 'Upload'}
      </button>
      <FormStatus error={state.error} />
    </form>
  );
}

function Reads({ dealId, doc }: { dealId: string; doc: DealDocument }) {
  const [open, setOpen] = useState(false);
  const [reads] = useLoad(() => (open ? consoleApi.documentReads(dealId, doc.id) : Promise.resolve([])), [open, dealId, doc.id, doc.reads]);
  if (!doc.reads) return <span className="muted">Not yet</span>;
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>{doc.reads === 1 ? 'Once' : `${doc.reads} times`}</summary>
      {reads.status === 'ready' && (
        <ul className="plain-list small">
          {reads.value.map((r) => (
            <li key={r.id}>
              <Person id={r.reader} /> <span className="muted">({r.readerRole})</span>, <When iso={r.readAt} />
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}

function ReleaseForm({ dealId, doc, workflow, onReleased }: { dealId: string; doc: DealDocument; workflow: Workflow; onReleased: (to: string) => void }) {
  const [to, setTo] = useState<'step' | 'investor'>('step');
  const [stepId, setStepId] = useState(workflow.steps[0]?.id ?? '');
  const [query, setQuery] = useState('');
  const [investorUserId, setInvestor] = useState('');
  const settled = useDebounced(query.trim(), 250);
  const [found] = useLoad(
    () => (to === 'investor' && settled ? consoleApi.rows(dealId, { query: settled, limit: 8 }) : Promise.resolve(undefined)),
    [dealId, to, settled],
  );
  const [error, setError] = useState<string>();
  const matches = found.status === 'ready' ? (found.value?.output ?? []) : [];
  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await consoleApi.releaseDocument(dealId, doc.id, to === 'step' ? { stepId } : { investorUserId });
      const name = matches.find((m) => m.investorUserId === investorUserId)?.fullName ?? investorUserId;
      onReleased(to === 'step' ? `everyone at or past ${workflow.steps.find((s) => s.id === stepId)?.label ?? stepId}` : name);
    } catch (e) {
      setError(describeError(e));
    }
  }
  return (
    <form className="release-form" onSubmit={submit} aria-label={`Release ${doc.title}`}>
      <label className="field">
        <span className="field-label">To</span>
        <select aria-label="Release to" value={to} onChange={(e) => setTo(e.target.value === 'investor' ? 'investor' : 'step')}>
          <option value="step">Everyone at or past a step</option>
          <option value="investor">One investor</option>
        </select>
      </label>
      {to === 'step' ? (
        <label className="field">
          <span className="field-label">Step</span>
          <select aria-label="Step" value={stepId} onChange={(e) => setStepId(e.target.value)}>
            <StepOptions steps={workflow.steps} />
          </select>
        </label>
      ) : (
        <>
          <label className="field">
            <span className="field-label">Investor (name or e-mail)</span>
            <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} />
          </label>
          {matches.length > 0 && (
            <fieldset className="field">
              <legend className="field-label">Choose</legend>
              {matches.map((m) => (
                <label key={m.investorUserId} className="check">
                  <input type="radio" name={`release-${doc.id}`} checked={investorUserId === m.investorUserId} onChange={() => setInvestor(m.investorUserId)} />{' '}
                  {m.fullName} <span className="muted small">{m.email}</span>
                </label>
              ))}
            </fieldset>
          )}
        </>
      )}
      <button type="submit" className="button button-small" disabled={to === 'investor' && !investorUserId}>
        Release
      </button>
      <FormStatus error={error} />
    </form>
  );
}
