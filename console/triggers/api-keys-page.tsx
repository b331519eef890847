// /console/triggers/api-keys: the person's sv_ keys — create (secret shown once, with a copy button), list, revoke.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { formatTime } from '../format';
import { onLinkClick, useTitle } from '../router';
import { SecretDialog } from './secret-dialog';
import { explain, type ApiKey, type ApiKeyPage, type CreatedApiKey } from './types';

const page = (cursor?: string) => api<ApiKeyPage>('GET', `/api-keys?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);

export function ApiKeysPage() {
  useTitle('API keys');
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);

  const reload = () =>
    page()
      .then((first) => {
        setKeys(first.apiKeys);
        setNextCursor(first.nextCursor);
      })
      .catch((failure: ApiError) => setError(failure.message));
  useEffect(() => void reload(), []);

  const create = async (e: Event) => {
    e.preventDefault();
    if (!name.trim()) return setError('Name the key after what will use it, for example "CRM sync".');
    setBusy(true);
    setError(null);
    try {
      setCreated(await api<CreatedApiKey>('POST', '/api-keys', { name: name.trim() }));
      setName('');
      void reload();
    } catch (failure) {
      setError(explain(failure));
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (key: ApiKey) => {
    setBusy(true);
    try {
      await api('DELETE', `/api-keys/${key.id}`);
      setRevoking(null);
      await reload();
    } catch (failure) {
      setError(explain(failure));
    } finally {
      setBusy(false);
    }
  };
  const more = async () => {
    if (!nextCursor || !keys) return;
    const next = await page(nextCursor).catch((failure: ApiError) => void setError(failure.message));
    if (!next) return;
    setKeys([...keys, ...next.apiKeys]);
    setNextCursor(next.nextCursor);
  };

  return (
    <main class="page">
      <p><a href="/console/triggers" onClick={onLinkClick}>← Triggers</a></p>
      <h1>API keys</h1>
      <p>A key acts as you in this organization: it fires API triggers, opens agent sessions and reads them. Revoke a key you no longer use.</p>
      <form class="filters" onSubmit={create} aria-label="Create an API key">
        <label>
          Key name
          <input name="keyName" maxLength={120} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>Create key</button>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {keys === null && !error && <p role="status">Loading keys…</p>}
      {keys?.length === 0 && <p role="status">You have no API keys yet. Create one for each script or system that calls the service.</p>}
      {keys && keys.length > 0 && (
        <ul class="list" aria-label="API keys">
          {keys.map((key) => (
            <li key={key.id}>
              <span>
                <strong>{key.name}</strong> <code>{key.hint}</code>
              </span>
              <span class="meta">
                <span>Created <time dateTime={key.createdAt}>{formatTime(key.createdAt)}</time></span>
                <span>{key.lastUsedAt ? <>Last used <time dateTime={key.lastUsedAt}>{formatTime(key.lastUsedAt)}</time></> : 'Never used'}</span>
                {key.revokedAt ? (
                  <span class="badge revoked">Revoked {formatTime(key.revokedAt)}</span>
                ) : revoking === key.id ? (
                  <span role="alert" class="confirm">
                    Revoke “{key.name}”? Anything using it stops at once.
                    <button type="button" class="danger" disabled={busy} onClick={() => revoke(key)}>Revoke for good</button>
                    <button type="button" class="secondary" onClick={() => setRevoking(null)}>Keep it</button>
                  </span>
                ) : (
                  <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => setRevoking(key.id)}>Revoke</button>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      {nextCursor && <button type="button" onClick={more}>Show more</button>}
      {created && (
        <SecretDialog title={`Your new key “${created.apiKey.name}”`} secret={created.secret} onClose={() => setCreated(null)}>
          <p>Send it in each request's <code>Authorization: Bearer …</code> header.</p>
        </SecretDialog>
      )}
    </main>
  );
}
