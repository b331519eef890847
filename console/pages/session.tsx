// One session, live: its messages (streaming text as message.delta arrives), tool calls and files, and its writes.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, sessionLabel, type SessionView, type ToolCallView } from '../api';
import { Composer, ManageSession, TurnActions } from '../components/session-actions';
import { formatTime } from '../format';
import { useTitle } from '../router';
import { followSession, type SessionEvent, type StreamState } from '../stream';

/** Text streaming in, by messageId, until the turn ends and the stored message replaces it. */
type Drafts = Record<string, string>;
/** A call known from the stream only (its arguments come with the reread). */
type LiveCall = Pick<ToolCallView, 'toolCallId' | 'toolName' | 'status' | 'identity' | 'errorCode'> & { args?: unknown };

const STATE_LABEL: Record<StreamState, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };

export function SessionPage({ sessionId }: { sessionId: string }) {
  const [view, setView] = useState<SessionView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [drafts, setDrafts] = useState<Drafts>({});
  const [running, setRunning] = useState<Record<string, LiveCall>>({});
  const [notices, setNotices] = useState<string[]>([]);
  const [state, setState] = useState<StreamState>('connecting');
  useTitle(view ? sessionLabel(view) : 'Session');

  useEffect(() => {
    let live = true;
    const reread = () =>
      api<SessionView>('GET', `/agents/sessions/${encodeURIComponent(sessionId)}`)
        .then((fresh) => {
          if (!live) return;
          setView(fresh);
          // Stored messages and calls now hold what was streaming.
          setDrafts((current) => Object.fromEntries(Object.entries(current).filter(([id]) => !fresh.messages.some((m) => m.messageId === id))));
          setRunning((current) => Object.fromEntries(Object.entries(current).filter(([id]) => !fresh.toolCalls.some((c) => c.toolCallId === id))));
        })
        .catch((failure: ApiError) => live && setError(failure.status === 404 ? 'This session does not exist or you cannot see it.' : failure.message));
    const onEvent = ({ event }: SessionEvent) => {
      const e = event as Record<string, any>;
      switch (e.type) {
        case 'snapshot':
        case 'turn.started':
        case 'turn.suspended':
        case 'turn.completed':
        case 'session.changed':
        case 'stream.reset':
        case 'file.added':
          void reread();
          break;
        case 'message.delta':
          setDrafts((current) => ({ ...current, [e.messageId]: (current[e.messageId] ?? '') + e.text }));
          break;
        case 'tool_call.started':
          setRunning((current) => ({ ...current, [e.toolCallId]: { toolCallId: e.toolCallId, toolName: e.toolName, args: undefined, status: 'running', identity: null, errorCode: null } }));
          break;
        case 'tool_call.finished':
          setRunning((current) => ({ ...current, [e.toolCallId]: { ...current[e.toolCallId], toolCallId: e.toolCallId, toolName: e.toolName, args: current[e.toolCallId]?.args, status: e.status, identity: e.identity, errorCode: e.errorCode } }));
          void reread();
          break;
        case 'caller_credential.failed':
          setNotices((current) => [...current, `A tool needs your own credentials for ${e.integrationId} (${e.code}).`]);
          break;
        case 'budget.failed':
          setNotices((current) => [...current, `The turn stopped at its ${e.budget} budget (${e.used} of ${e.limit}).`]);
          break;
      }
    };
    const stop = followSession(sessionId, onEvent, setState);
    return () => {
      live = false;
      stop();
    };
  }, [sessionId]);

  if (error) return <main class="page"><p role="alert" class="error">{error}</p></main>;
  if (!view) return <main class="page"><p role="status">Loading session…</p></main>;
  const calls: LiveCall[] = [...view.toolCalls, ...Object.values(running).filter((c) => !view.toolCalls.some((v) => v.toolCallId === c.toolCallId))];
  return (
    <main class="page">
      <h1>{sessionLabel(view)}</h1>
      <p class="meta">
        <span class={`badge ${view.status}`}>{view.archivedAt ? 'archived' : view.status}</span>
        {view.latestTurn && <span>Turn: {view.latestTurn.status}{view.latestTurn.errorCode ? ` (${view.latestTurn.errorCode})` : ''}</span>}
        <span role="status" aria-live="polite" class={`stream ${state}`}>{STATE_LABEL[state]}</span>
        <time dateTime={view.createdAt}>{formatTime(view.createdAt)}</time>
      </p>
      {notices.map((notice) => <p role="alert" class="error" key={notice}>{notice}</p>)}
      <TurnActions view={view} />
      <section aria-labelledby="messages-title">
        <h2 id="messages-title">Messages</h2>
        <ol class="messages" aria-label="Messages">
          {view.messages.map((m) => (
            <li key={m.messageId} class={m.role}>
              <span class="who">{m.role === 'assistant' ? 'Agent' : m.author?.isYou ? 'You' : (m.author?.name ?? 'User')}</span>
              <p>{m.text}</p>
            </li>
          ))}
          {Object.entries(drafts).map(([id, text]) => (
            <li key={id} class="assistant streaming" aria-busy="true">
              <span class="who">Agent (typing)</span>
              <p>{text}</p>
            </li>
          ))}
        </ol>
        {view.messages.length === 0 && Object.keys(drafts).length === 0 && <p>No messages yet.</p>}
        <Composer view={view} />
      </section>
      {calls.length > 0 && (
        <section aria-labelledby="tools-title">
          <h2 id="tools-title">Tool calls</h2>
          <ul class="list" aria-label="Tool calls">
            {calls.map((call) => (
              <li key={call.toolCallId}>
                <strong>{call.toolName}</strong>
                <span class="meta">
                  <span class={`badge ${call.status}`}>{call.status}</span>
                  {call.identity && <span>as {call.identity === 'caller' ? 'the caller' : 'the organization'}</span>}
                  {call.errorCode && <span class="error">{call.errorCode}</span>}
                </span>
                {call.args !== undefined && <pre>{JSON.stringify(call.args, null, 2)}</pre>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {view.files.length > 0 && (
        <section aria-labelledby="files-title">
          <h2 id="files-title">Files</h2>
          <ul class="list">
            {view.files.map((file) => (
              <li key={file.fileId}>
                <a href={`/api/v1/agents/sessions/${view.sessionId}/files/${file.fileId}`}>{file.name}</a>
                <span class="meta">{file.mediaType}, {file.sizeBytes} bytes</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <ManageSession view={view} onView={setView} />
    </main>
  );
}
