// A trigger's Run history: each firing's outcome, per-subscriber results with codes and session links, unused
// integrations; newest first, older pages with the API's cursor, the first page reread while the page is open.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { formatTime } from '../format';
import { onLinkClick } from '../router';
import type { Run, RunPage } from './types';

const REFRESH_MS = 3000;
const PAGE = 20;
const SOURCE_LABEL: Record<Run['source'], string> = { api: 'API call', schedule: 'Schedule', event: 'Event' };

/** `onNewRun` runs when a firing newer than those shown arrives (a schedule's next run has moved, say). */
export function RunHistory({ triggerId, onNewRun }: { triggerId: string; onNewRun?: () => void }) {
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [olderCursor, setOlderCursor] = useState<string | null>(null);
  /** Once older pages are loaded, the cursor points past them: a reread of the first page must not move it back. */
  const pagedBack = useRef(false);
  /** The newest run id of the last read (undefined before the first). */
  const newestSeen = useRef<string | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const path = (cursor?: string) => `/triggers/${triggerId}/runs?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

  useEffect(() => {
    let live = true;
    const load = () =>
      api<RunPage>('GET', path())
        .then((first) => {
          if (!live) return;
          // New firings go on top; older pages already loaded stay below them.
          const newest = first.runs[0]?.runId ?? null;
          if (newestSeen.current !== undefined && newest !== newestSeen.current) onNewRun?.();
          newestSeen.current = newest;
          setRuns((current) => {
            const fresh = new Set(first.runs.map((r) => r.runId));
            return [...first.runs, ...(current ?? []).filter((r) => !fresh.has(r.runId))];
          });
          if (!pagedBack.current) setOlderCursor(first.nextCursor);
          setError(null);
        })
        .catch((failure: ApiError) => live && setError(failure.message));
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [triggerId]);

  const older = async () => {
    if (!olderCursor) return;
    try {
      const page = await api<RunPage>('GET', path(olderCursor));
      pagedBack.current = true;
      setRuns((current) => [...(current ?? []), ...page.runs.filter((r) => !current?.some((c) => c.runId === r.runId))]);
      setOlderCursor(page.nextCursor);
    } catch (failure) {
      setError((failure as ApiError).message);
    }
  };

  return (
    <section aria-labelledby="runs-title">
      <h2 id="runs-title">Run history</h2>
      {error && <p role="alert" class="error">{error}</p>}
      {runs === null && !error && <p role="status">Loading the Run history…</p>}
      {runs?.length === 0 && <p role="status">No firings yet. Each firing appears here within seconds, with what every subscriber did.</p>}
      {runs && runs.length > 0 && (
        <ol class="list runs" aria-label="Runs">
          {runs.map((run) => <RunItem key={run.runId} run={run} />)}
        </ol>
      )}
      {olderCursor && <button type="button" onClick={older}>Show older runs</button>}
    </section>
  );
}

function RunItem({ run }: { run: Run }) {
  return (
    <li aria-label={`Run at ${formatTime(run.acceptedAt)}: ${run.outcome}`}>
      <span class="meta">
        <time dateTime={run.acceptedAt}>{formatTime(run.acceptedAt)}</time>
        <span>{SOURCE_LABEL[run.source]}</span>
        <span class={`badge ${run.outcome}`}>{run.outcome}</span>
        {run.idempotencyKey && <span>Idempotency key {run.idempotencyKey}</span>}
      </span>
      {run.subscribers.length === 0 && <p class="full">No subscriber: nothing started.</p>}
      <ul class="results" aria-label="Subscriber results">
        {run.subscribers.map((result) => (
          <li key={result.automationId}>
            <strong>{result.name ?? `Removed automation …${result.automationId.slice(-6)}`}</strong>
            {result.kind && <small> ({result.kind})</small>}
            <span class={`badge ${result.status}`}>{result.status}</span>
            {result.code && <code class="error">{result.code}</code>}
            {result.reason && <span class="reason">{result.reason}</span>}
            {result.sessionId && <a href={`/console/sessions/${result.sessionId}`} onClick={onLinkClick}>Open session</a>}
          </li>
        ))}
      </ul>
      {run.unusedCredentialIntegrationIds.length > 0 && (
        <p class="full">Supplied but unused credentials: {run.unusedCredentialIntegrationIds.join(', ')}</p>
      )}
    </li>
  );
}
