// Domains: the list, adding one (its creator owns it) and renaming.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { Dialog } from '../dialog';
import { formatTime } from '../format';
import type { ManagedDomain } from '../org';

export function DomainsSection({ domains, reload }: { domains: ManagedDomain[]; reload: () => Promise<void> }) {
  const [name, setName] = useState('');
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const [renaming, setRenaming] = useState<ManagedDomain | null>(null);
  const [newName, setNewName] = useState('');

  const run = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      await reload();
      setMessage({ text: done, bad: false });
      return true;
    } catch (caught) {
      setMessage({ text: (caught as ApiError).message, bad: true });
      return false;
    }
  };
  const add = async (event: Event) => {
    event.preventDefault();
    if (await run(() => api('POST', '/org/domains', { name: name.trim() }), `Domain "${name.trim()}" added; you own it.`)) setName('');
  };
  const rename = async (event: Event) => {
    event.preventDefault();
    const domain = renaming;
    setRenaming(null);
    if (domain) await run(() => api('PATCH', `/org/domains/${domain.domainId}`, { name: newName.trim() }), `Renamed to "${newName.trim()}".`);
  };

  return (
    <section aria-labelledby="domains-title" class="stack">
      <h2 id="domains-title">Domains</h2>
      <form class="card row" onSubmit={add}>
        <label>New domain name<input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <button type="submit">Add domain</button>
      </form>
      <p role="status" aria-live="polite" class={`message ${message?.bad ? 'error' : ''}`}>{message?.text}</p>
      {domains.length === 0 ? (
        <p>No domains yet. Add one above: agents, flows and triggers live in a domain.</p>
      ) : (
        <ul class="list" aria-label="Domains">
          {domains.map((domain) => (
            <li key={domain.domainId}>
              <strong>{domain.name}</strong>
              <span class="meta">
                <span>created <time dateTime={domain.createdAt}>{formatTime(domain.createdAt)}</time></span>
                <button type="button" class="secondary" onClick={() => { setNewName(domain.name); setRenaming(domain); }}>Rename<span class="visually-hidden"> {domain.name}</span></button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <Dialog title="Rename domain" open={renaming !== null} onClose={() => setRenaming(null)}>
        <form class="stack" onSubmit={rename}>
          <label>New name<input required maxLength={200} value={newName} onInput={(e) => setNewName(e.currentTarget.value)} /></label>
          <div class="actions">
            <button type="button" class="secondary" onClick={() => setRenaming(null)}>Cancel</button>
            <button type="submit">Rename</button>
          </div>
        </form>
      </Dialog>
    </section>
  );
}
