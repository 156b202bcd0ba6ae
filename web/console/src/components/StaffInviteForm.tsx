// The People page's invitation (admin): e-mail, name and role; the service answers a single-use
// link, shown here to copy and send (the person opens it and creates their passkey).
import { type FormEvent, useState } from 'react';
import { useSubmission } from '../../../kit/hooks.ts';
import { formatDateTime } from '../lib/format.ts';
import { ROLES, staffApi } from '../lib/staff.ts';
import { oneOf, type StaffInvitation } from '../lib/types.ts';
import { FormStatus } from './ui.tsx';

export function StaffInviteForm({ onInvited }: { onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<(typeof ROLES)[number]>('operator');
  const [made, setMade] = useState<StaffInvitation & { name: string }>();
  const [copied, setCopied] = useState(false);
  const { busy, error, run } = useSubmission();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const invitation = await staffApi.invite({ email: email.trim(), name: name.trim(), role });
      setMade({ ...invitation, name: name.trim() });
      setEmail('');
      setName('');
      onInvited();
    });
  };
  const copy = async () => {
    if (!made) return;
    try {
      await navigator.clipboard.writeText(made.url);
    } catch {
      // The clipboard refused: select the link so Ctrl+C copies it.
      (document.getElementById('staff-invite-url') as HTMLInputElement | null)?.select();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };

  return (
    <form className="form-card" onSubmit={submit} aria-labelledby="staff-invite-title">
      <h2 id="staff-invite-title">Invite a person</h2>
      <div className="field-pair">
        <label className="field">
          <span className="field-label">E-mail</span>
          <input type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Name</span>
          <input required autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Role</span>
          <select value={role} onChange={(e) => setRole(oneOf(ROLES, e.target.value))}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
      </div>
      <FormStatus error={error} />
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? 'Inviting…' : 'Create the invitation link'}
      </button>
      {made && (
        <div className="staff-invite-link" role="status">
          <label className="field-label" htmlFor="staff-invite-url">
            The link for {made.name} ({made.role})
          </label>
          <div className="invite-row">
            <input id="staff-invite-url" readOnly value={made.url} onFocus={(e) => e.target.select()} data-testid="staff-invite-url" />
            <button type="button" className="button" onClick={copy} aria-label={`Copy the link for ${made.name}`}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
          <p className="muted small">
            Send it to {made.email} yourself. It works once, until {formatDateTime(made.expiresAt)}; a new invitation replaces it.
          </p>
        </div>
      )}
    </form>
  );
}
