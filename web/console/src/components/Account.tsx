// The signed-in person in the top bar (name and role), and sign out: with a passkey's session, on
// this device or on every device (POST /console/api/sign-out); with a key, by forgetting it here.
import { useState } from 'react';
import { staffApi } from '../lib/staff.ts';
import type { Who } from '../lib/who.ts';
import { usePersonName } from './Person.tsx';

export function Account({ who, phone, onSignedOut }: { who: Who; phone: boolean; onSignedOut: (note?: string) => void }) {
  const looked = usePersonName(who.via === 'key' ? who.userId : undefined);
  const name = who.name ?? looked ?? who.userId.slice(0, 8);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const signOut = async (everywhere: boolean) => {
    if (who.via === 'key') return onSignedOut();
    setBusy(true);
    setFailed(false);
    try {
      await staffApi.signOut(everywhere);
      onSignedOut(everywhere ? 'You are signed out on every device.' : undefined);
    } catch {
      setFailed(true);
      setBusy(false);
    }
  };
  return (
    <div className="topbar-right">
      <span className="who" title={`Signed in as ${name} (${who.role}) with ${who.via === 'key' ? 'a key' : 'a passkey'}`} data-testid="who">
        {phone && 'Signed in as '}
        {name} · {who.role}
      </span>
      {failed && (
        <span className="who" role="alert">
          Sign out failed; try again.
        </span>
      )}
      <button type="button" className="button button-quiet" onClick={() => signOut(false)} disabled={busy}>
        Sign out
      </button>
      {who.via === 'passkey' && (
        <button type="button" className="button button-quiet" onClick={() => signOut(true)} disabled={busy}>
          Sign out everywhere
        </button>
      )}
    </div>
  );
}
