// Invite investors to the investor portal (POST /investors/portal-invitations): one from the
// investor drawer or page, many from the selection on the board or the table. Each investor gets
// a single-use link, which replaces any earlier unused one; the dialog shows every link with a
// copy button and whether the service e-mailed it.
import { useState } from 'react';
import { consoleApi, type PortalInvitations } from '../lib/api.ts';
import { formatDateTime, plural } from '../lib/format.ts';
import { useModal, useSubmission } from '../../../kit/hooks.ts';
import { FormStatus } from './ui.tsx';
import './PortalInviteDialog.css';

export interface Invitee {
  investorUserId: string;
  fullName: string;
}

export function PortalInviteDialog({ investors, onClose }: { investors: Invitee[]; onClose: () => void }) {
  const dialog = useModal();
  const [sent, setSent] = useState<PortalInvitations['invitations']>();
  const { busy, error, run } = useSubmission();
  const name = (id: string) => investors.find((i) => i.investorUserId === id)?.fullName ?? id;
  const who = investors.length === 1 ? investors[0]!.fullName : plural(investors.length, 'investor');

  const invite = () =>
    run(async () => {
      const answer = await consoleApi.invitePortal(investors.map((i) => i.investorUserId));
      setSent(answer.invitations);
    });

  return (
    <dialog ref={dialog} className="dialog invite-dialog" aria-labelledby="invite-title" onCancel={onClose} onClose={onClose}>
      <header className="dialog-head">
        <h2 id="invite-title">{sent ? `Portal links for ${who}` : `Invite ${who} to the investor portal`}</h2>
      </header>
      <div className="dialog-body">
        {!sent ? (
          <>
            <p>
              Each investor gets a single-use link to create a passkey and sign in to the portal, where they follow their deals, take the steps open to
              investors, see how to pay and ask for changes.
            </p>
            <p className="muted small">
              A new link replaces the investor’s earlier unused one. Links are e-mailed when the service has an e-mail server; otherwise copy them and send them
              yourself.
            </p>
            <FormStatus error={error} />
          </>
        ) : (
          <ul className="invite-links" aria-label="Invitation links" data-testid="invite-links">
            {sent.map((invitation) => (
              <InviteLink key={invitation.investorUserId} name={name(invitation.investorUserId)} invitation={invitation} />
            ))}
          </ul>
        )}
      </div>
      <footer className="dialog-foot">
        {sent ? (
          <button type="button" className="button button-primary" onClick={() => dialog.current?.close()}>
            Done
          </button>
        ) : (
          <>
            <button type="button" className="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="button" className="button button-primary" onClick={invite} disabled={busy}>
              {busy ? 'Creating links…' : investors.length === 1 ? 'Create the link' : `Create ${investors.length} links`}
            </button>
          </>
        )}
      </footer>
    </dialog>
  );
}

function InviteLink({ name, invitation }: { name: string; invitation: PortalInvitations['invitations'][number] }) {
  const [copied, setCopied] = useState(false);
  const id = `invite-${invitation.investorUserId.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(invitation.url);
    } catch {
      // The clipboard refused: select the link so Ctrl+C copies it.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <li className="invite-link">
      <label className="field-label" htmlFor={id}>
        {name}
      </label>
      <div className="invite-row">
        <input id={id} readOnly value={invitation.url} onFocus={(e) => e.target.select()} data-testid="invite-url" />
        <button type="button" className="button" onClick={copy} aria-label={`Copy the link for ${name}`}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="muted small">
        {invitation.emailed ? 'E-mailed to the investor.' : 'Not e-mailed: copy the link and send it.'} Valid until {formatDateTime(invitation.expiresAt)},
        once.
      </p>
    </li>
  );
}
