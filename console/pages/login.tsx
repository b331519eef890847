// Sign-in with email and password; a person in several organizations then names the one to work in.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { useTitle } from '../router';

export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  useTitle('Sign in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [orgId, setOrgId] = useState('');
  const [choosing, setChoosing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = choosing ? { email, password, orgId: orgId.trim() } : { email, password };
      const answer = await api<{ orgId: string | null }>('POST', '/console/login', body);
      // No organization selected: the person belongs to several and must name one (login again with orgId).
      if (answer.orgId === null) setChoosing(true);
      else onSignedIn();
    } catch (caught) {
      const failure = caught as ApiError;
      setError(failure.code === 'VALIDATION' && choosing ? 'Enter the organization ID your administrator gave you.' : failure.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="page narrow">
      <h1>Sign in to Switchyard</h1>
      <form onSubmit={submit} class="stack">
        <label>
          Email
          <input type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        {choosing && (
          <label>
            Organization ID
            <input name="orgId" required value={orgId} onInput={(e) => setOrgId(e.currentTarget.value)} aria-describedby="org-hint" />
            <small id="org-hint">You belong to several organizations: name the one to work in.</small>
          </label>
        )}
        {error && <p role="alert" class="error">{error}</p>}
        <button type="submit" disabled={busy}>{choosing ? 'Continue' : 'Sign in'}</button>
      </form>
    </main>
  );
}
