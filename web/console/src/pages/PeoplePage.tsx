// Staff people: everyone who signs in to the console, with their role, status and last sign-in.
// An admin invites people, changes a role and deactivates a person (their sessions, passkeys and
// keys end at once); every other role reads the list.
import { useState } from 'react';
import { useLoad } from '../../../kit/hooks.ts';
import { TableRegion } from '../components/PagedTable.tsx';
import { StaffInviteForm } from '../components/StaffInviteForm.tsx';
import { Badge, FormStatus, Pending, When } from '../components/ui.tsx';
import { ROLES, staffApi } from '../lib/staff.ts';
import { oneOf, type StaffPerson } from '../lib/types.ts';
import { useMay, useWho } from '../lib/who.ts';
import './PeoplePage.css';

export function PeoplePage() {
  const admin = useMay('admin');
  const [people, reload] = useLoad(() => staffApi.people(), []);
  return (
    <section aria-labelledby="people-title">
      <div className="page-head">
        <div>
          <h1 id="people-title">People</h1>
          <p className="muted">
            {admin
              ? 'Everyone who signs in to the console. Invite a person with a role; they create a passkey from the link.'
              : 'Everyone who signs in to the console. Only an admin invites people or changes their roles.'}
          </p>
        </div>
      </div>
      {admin && <StaffInviteForm onInvited={reload} />}
      <Pending state={people} retry={reload} />
      {people.status === 'ready' && (
        <TableRegion
          label="Staff people"
          className="people-table"
          head={
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Last sign-in</th>
              {admin && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          }
        >
          {people.value.people.map((p) => (
            <PersonRow key={p.personId} person={p} admin={admin} onChanged={reload} />
          ))}
        </TableRegion>
      )}
    </section>
  );
}

function PersonRow({ person, admin, onChanged }: { person: StaffPerson; admin: boolean; onChanged: () => void }) {
  const who = useWho();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const active = person.deactivatedAt === null;
  const self = who?.userId === person.personId;
  const act = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      setConfirming(false);
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const editable = admin && active && !self;
  return (
    <tr data-person-id={person.personId} className={active ? undefined : 'person-inactive'}>
      <td data-label="Name" className="person-name">
        <span>{person.name}</span>
        {self && <span className="muted small"> (you)</span>}
      </td>
      <td data-label="E-mail" className="break">
        {person.email}
      </td>
      <td data-label="Role">
        {editable ? (
          <select
            aria-label={`Role of ${person.name}`}
            value={person.role}
            disabled={busy}
            onChange={(e) => act(() => staffApi.setRole(person.personId, oneOf(ROLES, e.target.value)))}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : (
          person.role
        )}
      </td>
      <td data-label="Status">
        {active ? (
          <Badge tone={person.liveSessions > 0 ? 'green' : 'neutral'}>{person.liveSessions > 0 ? 'signed in' : 'active'}</Badge>
        ) : (
          <Badge tone="red">deactivated</Badge>
        )}
        {!active && person.deactivatedAt && (
          <div className="muted small">
            <When iso={person.deactivatedAt} />
          </div>
        )}
      </td>
      <td data-label="Last sign-in">{person.lastSignInAt ? <When iso={person.lastSignInAt} /> : <span className="muted">never</span>}</td>
      {admin && (
        <td className="person-actions">
          {editable && !confirming && (
            <button type="button" className="button button-small" onClick={() => setConfirming(true)}>
              Deactivate…
            </button>
          )}
          {editable && confirming && (
            <div className="person-confirm" role="group" aria-label={`Deactivate ${person.name}`}>
              <span className="small">Their sessions, passkeys and keys end now. Deactivate {person.name}?</span>
              <button
                type="button"
                className="button button-small button-danger"
                disabled={busy}
                onClick={() => act(() => staffApi.deactivate(person.personId))}
              >
                Deactivate
              </button>
              <button type="button" className="button button-small" disabled={busy} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          )}
          <FormStatus error={error} />
        </td>
      )}
    </tr>
  );
}
