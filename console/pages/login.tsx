// Sign-in with email and password; a person in several organizations then picks the one to work in.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { listOrganizations, ROLE_LABEL, selectOrganization, type OrganizationChoice } from '../org';
import { useTitle } from '../router';

export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  useTitle('Sign in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [choices, setChoices] = useState<OrganizationChoice[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const pick = async () => {
    const { organizations } = await listOrganizations();
    if (organizations.length === 0) setError('Your account is not active in any organization. Ask an administrator to invite you again.');
    setChoices(organizations);
  };

  // Signed in without an organization (several to choose from, then a reload): go straight to the choice.
  useEffect(() => {
    listOrganizations()
      .then((answer) => answer.currentOrgId === null && setChoices(answer.organizations))
      .catch(() => undefined);
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api<{ orgId: string | null }>('POST', '/console/login', { email, password });
      // No organization selected: the person belongs to several and picks one.
      if (answer.orgId === null) await pick();
      else onSignedIn();
    } catch (caught) {
      setError((caught as ApiError).message);
    } finally {
      setBusy(false);
    }
  };

  if (choices) return <OrganizationPicker choices={choices} error={error} onChosen={onSignedIn} />;
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
        {error && <p role="alert" class="error">{error}</p>}
        <button type="submit" disabled={busy}>Sign in</button>
      </form>
    </main>
  );
}

function OrganizationPicker({ choices, error: initialError, onChosen }: { choices: OrganizationChoice[]; error: string | null; onChosen: () => void }) {
  useTitle('Choose an organization');
  const [orgId, setOrgId] = useState(choices[0]?.orgId ?? '');
  const [error, setError] = useState(initialError);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await selectOrganization(orgId);
      onChosen();
    } catch (caught) {
      setError((caught as ApiError).message);
      setBusy(false);
    }
  };
  return (
    <main class="page narrow">
      <h1>Choose an organization</h1>
      <form onSubmit={submit} class="stack">
        <p id="choice-hint">You belong to several organizations: pick the one to work in. You can switch later from the header.</p>
        <fieldset class="choices" aria-describedby="choice-hint">
          <legend>Organization</legend>
          {choices.map((choice) => (
            <label key={choice.orgId} class="choice">
              <input type="radio" name="orgId" value={choice.orgId} checked={orgId === choice.orgId} onChange={() => setOrgId(choice.orgId)} />
              <span>{choice.name} <small>{ROLE_LABEL[choice.role]}</small></span>
            </label>
          ))}
        </fieldset>
        {error && <p role="alert" class="error">{error}</p>}
        {choices.length > 0 && <button type="submit" disabled={busy}>Continue</button>}
      </form>
    </main>
  );
}
