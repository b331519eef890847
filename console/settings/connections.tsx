// Connections: which integration, which domain, whether a token is stored; enter or rotate a token (never shown again).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { Dialog } from '../dialog';
import { formatTime } from '../format';
import type { Connection, ManagedDomain } from '../org';

export function ConnectionsSection({ domains }: { domains: ManagedDomain[] }) {
  const [connections, setConnections] = useState<Connection[] | null>(null);
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const [rotating, setRotating] = useState<Connection | null>(null);
  const [removing, setRemoving] = useState<Connection | null>(null);
  const domainName = (id: string | null) => (id === null ? 'Whole organization' : (domains.find((d) => d.domainId === id)?.name ?? 'A domain'));
  const load = () =>
    api<{ connections: Connection[] }>('GET', '/org/connections')
      .then((answer) => setConnections(answer.connections))
      .catch((failure: ApiError) => setMessage({ text: failure.message, bad: true }));
  useEffect(() => void load(), []);

  const run = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      await load();
      setMessage({ text: done, bad: false });
      return true;
    } catch (caught) {
      setMessage({ text: (caught as ApiError).message, bad: true });
      return false;
    }
  };

  return (
    <section aria-labelledby="connections-title" class="stack">
      <h2 id="connections-title">Connections</h2>
      <p>A connection holds the organization's token for an integration. A token is stored sealed and is never shown again: to change it, enter a new one.</p>
      <AddConnection domains={domains} add={(body) => run(() => api('POST', '/org/connections', body), `Connection to ${body.integrationId} added; its token is stored.`)} />
      <p role="status" aria-live="polite" class={`message ${message?.bad ? 'error' : ''}`}>{message?.text}</p>
      {connections === null && !message && <p role="status">Loading connections…</p>}
      {connections?.length === 0 && <p>No connections yet. Add one above so tools can call the integration as the organization.</p>}
      {connections && connections.length > 0 && (
        <ul class="list" aria-label="Connections">
          {connections.map((c) => (
            <li key={c.connectionId}>
              <span class="grow">
                <strong>{c.integrationId}</strong> <small>{domainName(c.domainId)}</small>
                <span class="meta">
                  <span class="badge">{c.hasSecret ? 'Token stored' : 'No token'}</span>
                  <span>added <time dateTime={c.createdAt}>{formatTime(c.createdAt)}</time></span>
                  {c.rotatedAt && <span>rotated <time dateTime={c.rotatedAt}>{formatTime(c.rotatedAt)}</time></span>}
                </span>
              </span>
              <span class="actions">
                <button type="button" class="secondary" onClick={() => setRotating(c)}>{c.hasSecret ? 'Rotate token' : 'Enter token'}<span class="visually-hidden"> of {c.integrationId}</span></button>
                <button type="button" class="secondary danger" onClick={() => setRemoving(c)}>Remove<span class="visually-hidden"> {c.integrationId}</span></button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <Dialog title={`New token for ${rotating?.integrationId ?? ''}`} open={rotating !== null} onClose={() => setRotating(null)}>
        <TokenForm
          submitLabel="Save token"
          onCancel={() => setRotating(null)}
          onSubmit={async (token) => {
            const target = rotating;
            setRotating(null);
            if (target) await run(() => api('POST', `/org/connections/${target.connectionId}/rotate`, { secret: { token } }), `The token of ${target.integrationId} was replaced; the next tool call uses it.`);
          }}
        />
      </Dialog>
      <Dialog title="Remove this connection?" open={removing !== null} onClose={() => setRemoving(null)}>
        <p>Tools of {removing?.integrationId} that use the organization's identity stop working until a connection is added again.</p>
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setRemoving(null)}>Keep</button>
          <button type="button" class="danger" onClick={() => { const target = removing; setRemoving(null); if (target) void run(() => api('DELETE', `/org/connections/${target.connectionId}`), `Connection to ${target.integrationId} removed.`); }}>Remove</button>
        </div>
      </Dialog>
    </section>
  );
}

type NewConnection = { integrationId: string; domainId?: string; secret: { token: string } };

function AddConnection({ domains, add }: { domains: ManagedDomain[]; add: (body: NewConnection) => Promise<boolean> }) {
  const [integrationId, setIntegrationId] = useState('');
  const [domainId, setDomainId] = useState('');
  const [token, setToken] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    const body: NewConnection = { integrationId: integrationId.trim(), secret: { token }, ...(domainId ? { domainId } : {}) };
    // The field is emptied either way: a token never stays on the page after it was sent.
    setToken('');
    if (await add(body)) setIntegrationId('');
  };
  return (
    <form class="card stack" aria-labelledby="add-connection-title" onSubmit={submit}>
      <h3 id="add-connection-title">Add a connection</h3>
      <div class="row">
        <label>Integration ID<input required maxLength={100} value={integrationId} onInput={(e) => setIntegrationId(e.currentTarget.value)} /></label>
        <label>
          Domain
          <select value={domainId} onChange={(e) => setDomainId(e.currentTarget.value)}>
            <option value="">Whole organization</option>
            {domains.map((d) => <option key={d.domainId} value={d.domainId}>{d.name}</option>)}
          </select>
        </label>
        <label>Token<input type="password" required autoComplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} /></label>
      </div>
      <button type="submit">Add connection</button>
    </form>
  );
}

function TokenForm({ submitLabel, onSubmit, onCancel }: { submitLabel: string; onSubmit: (token: string) => Promise<void>; onCancel: () => void }) {
  const [token, setToken] = useState('');
  return (
    <form
      class="stack"
      onSubmit={(event) => {
        event.preventDefault();
        const value = token;
        setToken('');
        void onSubmit(value);
      }}
    >
      <label>
        Token
        <input type="password" required autoComplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} aria-describedby="token-hint" />
        <small id="token-hint">Write-only: the stored token is never shown, here or anywhere.</small>
      </label>
      <div class="actions">
        <button type="button" class="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit">{submitLabel}</button>
      </div>
    </form>
  );
}
