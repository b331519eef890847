// The sessions list with filters (agent or flow, active or archived); refreshed while open so new sessions appear.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, sessionLabel, type SessionSummary } from '../api';
import { formatTime } from '../format';
import { onLinkClick, useTitle } from '../router';

const REFRESH_MS = 5000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function SessionsPage() {
  useTitle('Sessions');
  const [status, setStatus] = useState('active');
  const [automationId, setAutomationId] = useState('');
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const query = (cursor?: string) => {
    const params = new URLSearchParams({ limit: '50' });
    if (status) params.set('status', status);
    if (UUID.test(automationId.trim())) params.set('automationId', automationId.trim());
    if (cursor) params.set('cursor', cursor);
    return api<{ sessions: SessionSummary[]; nextCursor: string | null }>('GET', `/agents/sessions?${params}`);
  };

  useEffect(() => {
    let live = true;
    const load = () =>
      query()
        .then((page) => {
          if (!live) return;
          setSessions(page.sessions);
          setNextCursor(page.nextCursor);
          setError(null);
        })
        .catch((failure: ApiError) => live && setError(failure.message));
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [status, automationId]);

  const more = async () => {
    if (!nextCursor || !sessions) return;
    const page = await query(nextCursor);
    setSessions([...sessions, ...page.sessions]);
    setNextCursor(page.nextCursor);
  };

  const badAutomation = automationId.trim() !== '' && !UUID.test(automationId.trim());
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
          Agent or flow ID
          <input value={automationId} placeholder="any" onInput={(e) => setAutomationId(e.currentTarget.value)} aria-invalid={badAutomation} />
        </label>
        {badAutomation && <p class="error" role="alert">An agent or flow ID looks like 0b5f…-…; showing every agent meanwhile.</p>}
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {sessions === null && !error && <p role="status">Loading sessions…</p>}
      {sessions?.length === 0 && <p role="status">No sessions yet. Fire a trigger or open a session through the API, and it appears here.</p>}
      {sessions && sessions.length > 0 && (
        <ul class="list" aria-label="Sessions">
          {sessions.map((session) => (
            <li key={session.sessionId}>
              <a href={`/console/sessions/${session.sessionId}`} onClick={onLinkClick}>{sessionLabel(session)}</a>
              <span class="meta">
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
