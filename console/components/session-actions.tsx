// A session page's writes: send a message, cancel the running turn, and (for managers) rename, set the outcome, archive.
import { useState } from 'preact/hooks';
import { api, ApiError, type SessionView } from '../api';
import { onLinkClick } from '../router';

const UNSETTLED = new Set(['queued', 'running', 'suspended', 'resume_queued']);
const READ_ONLY: Record<NonNullable<SessionView['readOnlyReason']>, string> = {
  flow_session: 'This is a flow run: it takes no messages.',
  not_a_participant: 'You can read this session, but your role in its domain does not let you send messages.',
  session_archived: 'This session is archived: unarchive it to send messages.',
  agent_unpublished: 'The agent has no published revision, so it takes no messages.',
};
type Outcome = NonNullable<SessionView['outcome']>;

/** Runs one write; the API's own error message is what the person reads. */
function useWrite() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async <T,>(write: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await write();
    } catch (failure) {
      setError((failure as ApiError).message);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

const path = (view: SessionView, tail = '') => `/agents/sessions/${encodeURIComponent(view.sessionId)}${tail}`;

export function Composer({ view }: { view: SessionView }) {
  const [text, setText] = useState('');
  const { busy, error, run } = useWrite();
  if (!view.canParticipate) return <p class="meta">{READ_ONLY[view.readOnlyReason ?? 'not_a_participant']}</p>;
  const send = async (event: Event) => {
    event.preventDefault();
    if (!text.trim()) return;
    // The stream shows the message and its answer as they are stored.
    if ((await run(() => api('POST', path(view, '/messages'), { message: text.trim() }))) !== undefined) setText('');
  };
  return (
    <form class="composer" onSubmit={send} aria-label="Send a message">
      <label>
        Message
        <textarea rows={3} maxLength={8000} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      {error && <p role="alert" class="error">{error}</p>}
      <button type="submit" disabled={busy || !text.trim()}>Send</button>
    </form>
  );
}

/** The waiting approval and a cancel for an unfinished turn (anyone who may drive the session, as the API decides). */
export function TurnActions({ view }: { view: SessionView }) {
  const { busy, error, run } = useWrite();
  const unsettled = view.latestTurn !== null && UNSETTLED.has(view.latestTurn.status);
  if (!unsettled || view.readOnlyReason === 'not_a_participant') return null;
  return (
    <div class="actions" aria-label="Turn">
      {view.pendingApproval && (
        <p>
          Waiting for approval of <strong>{view.pendingApproval.toolName}</strong>. <a href="/console/approvals" onClick={onLinkClick}>Open the approvals</a>
        </p>
      )}
      <button type="button" class="danger" disabled={busy} onClick={() => run(() => api('POST', path(view, '/cancel'), {}))}>Cancel turn</button>
      {error && <p role="alert" class="error">{error}</p>}
    </div>
  );
}

/** Rename, outcome, archive/unarchive: only for a person who may manage the session (canManage). */
export function ManageSession({ view, onView }: { view: SessionView; onView: (view: SessionView) => void }) {
  const [title, setTitle] = useState(view.title ?? '');
  const { busy, error, run } = useWrite();
  if (!view.canManage) return null;
  const archived = view.archivedAt !== null;
  const change = async (write: () => Promise<SessionView>) => {
    const fresh = await run(write);
    if (fresh) onView(fresh);
  };
  const rename = (event: Event) => {
    event.preventDefault();
    void change(() => api('PATCH', path(view), { title: title.trim() }));
  };
  const setOutcome = (outcome: string) => void change(() => api('PATCH', path(view), { outcome: outcome === '' ? null : (outcome as Outcome) }));
  return (
    <section aria-labelledby="manage-title" class="manage">
      <h2 id="manage-title">Manage</h2>
      <form class="inline" onSubmit={rename}>
        <label>
          Title
          <input value={title} maxLength={200} disabled={archived} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy || archived || !title.trim() || title.trim() === view.title}>Rename</button>
      </form>
      <label>
        Outcome
        <select value={view.outcome ?? ''} disabled={busy || archived} onChange={(e) => setOutcome(e.currentTarget.value)}>
          <option value="">Not set</option>
          <option value="resolved">Resolved</option>
          <option value="unresolved">Unresolved</option>
          <option value="escalated">Escalated</option>
        </select>
      </label>
      <button type="button" class="secondary" disabled={busy} onClick={() => change(() => api('POST', path(view, archived ? '/unarchive' : '/archive'), {}))}>
        {archived ? 'Unarchive' : 'Archive'}
      </button>
      {error && <p role="alert" class="error">{error}</p>}
    </section>
  );
}
