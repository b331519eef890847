// The agents or the flows of the domains the signed-in person belongs to, with what runs (published revision or version).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import type { AutomationPage } from '../authoring';
import { formatTime } from '../format';
import { onLinkClick, useTitle } from '../router';

type Kind = 'agent' | 'flow';
const TITLE: Record<Kind, string> = { agent: 'Agents', flow: 'Flows' };
const EMPTY: Record<Kind, string> = {
  agent: 'No agents yet. Create one through the authoring API (POST /api/v1/authoring/automations) or a workspace manifest, and it appears here.',
  flow: 'No flows yet. Create one through POST /api/v1/flows or a workspace manifest, and it appears here.',
};

export function AutomationsPage({ kind }: { kind: Kind }) {
  useTitle(TITLE[kind]);
  const [archived, setArchived] = useState(false);
  const [items, setItems] = useState<AutomationPage['automations'] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const query = (cursor?: string) => {
    const params = new URLSearchParams({ kind, archived: String(archived), limit: '100' });
    if (cursor) params.set('cursor', cursor);
    return api<AutomationPage>('GET', `/authoring/automations?${params}`);
  };
  useEffect(() => {
    let live = true;
    setItems(null);
    query()
      .then((page) => live && (setItems(page.automations), setNextCursor(page.nextCursor), setError(null)))
      .catch((failure: ApiError) => live && setError(failure.message));
    return () => {
      live = false;
    };
  }, [kind, archived]);
  const more = async () => {
    if (!nextCursor || !items) return;
    const page = await query(nextCursor).catch((failure: ApiError) => (setError(failure.message), null));
    if (page) (setItems([...items, ...page.automations]), setNextCursor(page.nextCursor));
  };

  return (
    <main class="page">
      <h1>{TITLE[kind]}</h1>
      <form class="filters" aria-label={`Filter ${TITLE[kind].toLowerCase()}`} onSubmit={(e) => e.preventDefault()}>
        <label>
          Show
          <select value={String(archived)} onChange={(e) => setArchived(e.currentTarget.value === 'true')}>
            <option value="false">Active</option>
            <option value="true">Archived</option>
          </select>
        </label>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {items === null && !error && <p role="status">Loading {TITLE[kind].toLowerCase()}…</p>}
      {items?.length === 0 && <p role="status">{archived ? `No archived ${TITLE[kind].toLowerCase()}.` : EMPTY[kind]}</p>}
      {items && items.length > 0 && (
        <ul class="list" aria-label={TITLE[kind]}>
          {items.map((item) => (
            <li key={item.id}>
              <span class="stack-tight">
                <a href={`/console/${kind}s/${item.id}`} onClick={onLinkClick}>{item.name}</a>
                {item.description && <small>{item.description}</small>}
              </span>
              <span class="meta">
                <span class="badge">
                  {item.publishedRevision === null ? 'not published' : `${kind === 'agent' ? 'revision' : 'version'} ${item.publishedRevision}`}
                </span>
                <span>updated <time dateTime={item.updatedAt}>{formatTime(item.updatedAt)}</time></span>
              </span>
            </li>
          ))}
        </ul>
      )}
      {nextCursor && <button type="button" onClick={more}>Show more</button>}
    </main>
  );
}
