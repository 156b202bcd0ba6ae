// The bootstrap sign-in: a pasted API key (the first admin's, printed by the service's first start,
// or one made with `dealflow token create`), checked with GET /whoami and kept in sessionStorage for
// this tab, or in localStorage when the person asks to stay signed in on this device.
import { useState, type FormEvent } from 'react';
import { ApiError, api, tokenStore, type Whoami } from '../lib/api.ts';
import { useSubmission } from '../../../kit/hooks.ts';
import { FormStatus } from './ui.tsx';

export function KeyForm({ onSignedIn }: { onSignedIn: (who: Whoami) => void }) {
  const [token, setToken] = useState('');
  const { busy, error, run, refuse } = useSubmission();
  const [remember, setRemember] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = token.trim();
    if (!value) return refuse('Paste a token first.');
    await run(async () => {
      let who: Whoami;
      try {
        who = await api.whoami(value);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401)
          return refuse('That token was not accepted: it is unknown, revoked or expired. Check it and try again.');
        throw err;
      }
      if (who.role === 'investor') return refuse('That token belongs to an investor. The console needs a staff token.');
      tokenStore.set(value, remember);
      onSignedIn(who);
    });
  }

  return (
    <form className="signin-key" onSubmit={submit} aria-labelledby="key-title">
      <h2 id="key-title">First start: paste the admin key printed by the service</h2>
      <p className="muted">
        The first <code>npm start</code> prints an admin token; <code>npx dealflow token create --role admin --name you</code> makes another. Use it to invite
        the first people, who then sign in with passkeys. It is kept for this browser tab only, unless you choose to stay signed in on this device.
      </p>
      <label className="field">
        <span className="field-label">Admin token</span>
        <input
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="dfk_…"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-invalid={error !== undefined || undefined}
          aria-describedby={error !== undefined ? 'signin-error' : undefined}
        />
      </label>
      <label className="check">
        <input type="checkbox" name="remember" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
        Keep me signed in on this device (every tab, until you sign out)
      </label>
      <FormStatus id="signin-error" error={error} />
      <button type="submit" className="button button-block" disabled={busy}>
        {busy ? 'Checking…' : 'Sign in with the key'}
      </button>
    </form>
  );
}
