// Sign-in: the admin token, checked with GET /whoami and kept in sessionStorage for this tab, or in
// localStorage when the person asks to stay signed in on this device.
import { useState, type FormEvent } from 'react';
import { ApiError, api, tokenStore, type Whoami } from '../lib/api.ts';
import { useSubmission } from '../../../kit/hooks.ts';
import { FormStatus } from '../components/ui.tsx';
import './TokenScreen.css';

export function TokenScreen({ reason, onSignedIn }: { reason?: string | undefined; onSignedIn: (who: Whoami) => void }) {
  const [token, setToken] = useState('');
  const { busy, error, run, refuse } = useSubmission(reason);
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
    <main className="signin">
      <form className="signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          dealflow <span className="brand-sub">console</span>
        </div>
        <h1 id="signin-title">Sign in with an admin token</h1>
        <p className="muted">
          The token is kept for this browser tab only, unless you choose to stay signed in on this device. Create one with{' '}
          <code>npx dealflow token create --role admin --name you</code>; the first <code>npm start</code> prints one.
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
            // biome-ignore lint/a11y/noAutofocus: the token is all the sign-in page asks for
            autoFocus
          />
        </label>
        <label className="check">
          <input type="checkbox" name="remember" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
          Keep me signed in on this device (every tab, until you sign out)
        </label>
        <FormStatus id="signin-error" error={error} />
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
