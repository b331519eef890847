// The sessions list with filters (agent or flow by name, active or archived, mine); refreshed while open so new sessions appear.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, sessionLabel, type SessionSummary } from '../api';
import { useAutomations } from '../automations';
import { formatTime } from '../format';
import { onLinkClick, useTitle } from '../router';

const REFRESH_MS = 5000;

export function SessionsPage() {
  useTitle('Sessions');
  const [status, setStatus] = useState('active');
  const [automationId, setAutomationId] = useState('');
  const [mine, setMine] = useState(false);
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const automations = useAutomations();
  const loadedMore = useRef(false);

  const query = (cursor?: string) => {
    const params = new URLSearchParams({ limit: '50' });
    if (status) params.set('status', status);
    if (automationId) params.set('automationId', automationId);
    if (mine) params.set('mine', 'true');
    if (cursor) params.set('cursor', cursor);
    return api<{ sessions: SessionSummary[]; nextCursor: string | null }>('GET', `/agents/sessions?${params}`);
  };

  useEffect(() => {
    let live = true;
    let first = true; // a new filter starts over; a refresh rereads the first page and keeps what "Show more" added
    const load = () =>
      query()
        .then((page) => {
          if (!live) return;
          const extended = !first && loadedMore.current;
          first = false;
          setSessions((current) => (extended && current ? withFreshHead(page.sessions, current) : page.sessions));
          if (!extended) {
            loadedMore.current = false;
            setNextCursor(page.nextCursor);
          }
          setError(null);
        })
        .catch((failure: ApiError) => live && setError(failure.message));
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [status, automationId, mine]);

  const more = async () => {
    if (!nextCursor || !sessions) return;
    const page = await query(nextCursor);
    loadedMore.current = true;
    setSessions([...sessions, ...page.sessions]);
    setNextCursor(page.nextCursor);
  };

  return (
    <main class="page">
      <h1>Sessions</h1>
      <form class="filters" role="search" aria-label="Filter sessions" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="active">Active</option>
            <option value="archived">Archived</option>
            <option value="">All</option>
          </select>
        </label>
        <label>
          Agent or flow
          <select value={automationId} onChange={(e) => setAutomationId(e.currentTarget.value)}>
            <option value="">All</option>
            {[...automations.values()].map((a) => (
              <option key={a.id} value={a.id}>{a.name} ({a.kind})</option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={mine} onChange={(e) => setMine(e.currentTarget.checked)} />
          Only sessions I started
        </label>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {sessions === null && !error && <p role="status">Loading sessions…</p>}
      {sessions?.length === 0 && (
        <p role="status">
          {mine || automationId || status !== 'active'
            ? 'No session matches these filters. Change or clear them to see more.'
            : 'No sessions yet. Fire a trigger or open a session through the API, and it appears here.'}
        </p>
      )}
      {sessions && sessions.length > 0 && (
        <ul class="list" aria-label="Sessions">
          {sessions.map((session) => (
            <li key={session.sessionId}>
              <a href={`/console/sessions/${session.sessionId}`} onClick={onLinkClick}>{sessionLabel(session)}</a>
              <span class="meta">
                {automations.get(session.automationId) && <span>{automations.get(session.automationId)!.name}</span>}
                <span class={`badge ${session.status}`}>{session.archivedAt ? 'archived' : session.status}</span>
                <time dateTime={session.createdAt}>{formatTime(session.createdAt)}</time>
              </span>
            </li>
          ))}
        </ul>
      )}
      {nextCursor && <button type="button" onClick={more}>Show more</button>}
    </main>
  );
}

/** The fresh first page, then what was loaded below it (sessions that moved up into the first page are not repeated). */
function withFreshHead(fresh: SessionSummary[], current: SessionSummary[]): SessionSummary[] {
  const ids = new Set(fresh.map((session) => session.sessionId));
  return [...fresh, ...current.slice(fresh.length).filter((session) => !ids.has(session.sessionId))];
}
