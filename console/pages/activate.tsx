// The invitation link (/console/activate#token=svi_…): set the first password through the single-use API, then sign in.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { useTitle } from '../router';

/** Reads the token once and drops the fragment from the address bar (and from history) so it is not shared by accident. */
function takeToken(): string | null {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(null, '', location.pathname);
  return token;
}

export function ActivatePage({ onSignedIn }: { onSignedIn: () => void }) {
  useTitle('Activate your account');
  const [token] = useState(takeToken);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<'form' | 'dead-link' | 'set-no-login'>(token ? 'form' : 'dead-link');
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (password !== confirm) return setError('The two passwords differ.');
    setBusy(true);
    setError(null);
    try {
      const answer = await api<{ signedIn: boolean }>('POST', '/console/activate', { token, password });
      if (answer.signedIn) onSignedIn();
      else setOutcome('set-no-login');
    } catch (caught) {
      const failure = caught as ApiError;
      if (failure.code === 'NOT_FOUND') setOutcome('dead-link');
      else setError(failure.code === 'VALIDATION' ? 'Choose a password of at least 8 characters.' : failure.message);
    } finally {
      setBusy(false);
    }
  };

  if (outcome === 'dead-link') {
    return (
      <main class="page narrow">
        <h1>This invitation link cannot be used</h1>
        <p role="alert">It was already used, has expired, or is incomplete. Ask the person who invited you for a new invitation, or <a href="/console">sign in</a> if you already set your password.</p>
      </main>
    );
  }
  if (outcome === 'set-no-login') {
    return (
      <main class="page narrow">
        <h1>Your password is set</h1>
        <p role="status">Your organization signs in through its own identity provider; use it to open the console.</p>
      </main>
    );
  }
  return (
    <main class="page narrow">
      <h1>Activate your account</h1>
      <p>Choose the password you will sign in with.</p>
      <form onSubmit={submit} class="stack">
        <label>
          New password
          <input type="password" name="password" autoComplete="new-password" minLength={8} required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        <label>
          Repeat the password
          <input type="password" name="confirm" autoComplete="new-password" minLength={8} required value={confirm} onInput={(e) => setConfirm(e.currentTarget.value)} />
        </label>
        {error && <p role="alert" class="error">{error}</p>}
        <button type="submit" disabled={busy}>Set password and sign in</button>
      </form>
    </main>
  );
}
