// The operations view (issue 14 item 8): what runs right now in the organization, reread every two seconds.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { formatTime } from '../format';
import type { Operations } from '../org';
import { useTitle } from '../router';
import '../org.css';

export const OPERATIONS_REFRESH_MS = 2000;

type State = { snapshot: Operations | null; error: string | null; forbidden: boolean };

export function OperationsPage() {
  useTitle('Operations');
  const [state, setState] = useState<State>({ snapshot: null, error: null, forbidden: false });
  useEffect(() => {
    let live = true;
    const load = () => {
      if (document.hidden) return; // Nobody is looking: the next visible tick catches up.
      api<Operations>('GET', '/org/operations')
        .then((snapshot) => live && setState({ snapshot, error: null, forbidden: false }))
        .catch((failure: ApiError) => live && setState((s) => ({ ...s, forbidden: failure.status === 403, error: failure.message })));
    };
    load();
    const timer = setInterval(load, OPERATIONS_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);

  if (state.forbidden) {
    return (
      <main class="page">
        <h1>Operations</h1>
        <p role="status" class="notice">Only an Owner or Admin of this organization can see its operations. Ask one of them for the Admin role.</p>
      </main>
    );
  }
  const s = state.snapshot;
  const o = s?.organization;
  return (
    <main class="page">
      <h1>Operations</h1>
      <p class="meta">
        <span role="status" aria-live="polite" class={`stream ${state.error ? 'reconnecting' : s ? 'live' : ''}`}>
          {state.error ? `Not updating: ${state.error} Retrying every two seconds.` : s ? 'Live' : 'Loading…'}
        </span>
        {s && <span>Updated <time dateTime={s.at}>{formatTime(s.at, true)}</time></span>}
      </p>
      <section aria-labelledby="org-ops-title">
        <h2 id="org-ops-title">This organization</h2>
        <dl class="tiles">
          <Tile label="Running turns" value={o?.turns.running} />
          <Tile label="Queued turns" value={o && o.turns.queued + o.turns.resumeQueued} hint={o?.turns.resumeQueued ? `${o.turns.resumeQueued} resuming after an approval` : undefined} />
          <Tile label="Suspended turns" value={o?.turns.suspended} hint={o ? `${o.pendingApprovals} approval${o.pendingApprovals === 1 ? '' : 's'} pending` : undefined} />
          <Tile label="Fires per second" value={o?.fires.perSecond} hint={o ? `${o.fires.count} in the last ${o.fires.windowSeconds} s` : undefined} />
          <Tile label="Webhook failures" value={o?.webhooks.failed} bad={!!o?.webhooks.failed} hint={o ? `${o.webhooks.retrying} retrying; last ${o.webhooks.windowHours} h${o.webhooks.lastFailureAt ? `, latest ${formatTime(o.webhooks.lastFailureAt)}` : ''}` : undefined} />
        </dl>
      </section>
      <section aria-labelledby="process-ops-title">
        <h2 id="process-ops-title">This service process <small>(all organizations)</small></h2>
        <dl class="tiles">
          <Tile label="Open streams" value={s?.process.openStreams} hint={s ? `${s.process.streamedSessions} sessions followed` : undefined} />
          <Tile label="Admission queue" value={s?.process.queuedExecutions} hint={s ? `limit ${s.process.queueLimit}` : undefined} />
        </dl>
      </section>
    </main>
  );
}

/** A fixed-size tile: numbers change in place, nothing moves while they update. */
function Tile({ label, value, hint, bad }: { label: string; value: number | undefined; hint?: string; bad?: boolean }) {
  return (
    <div class={`tile ${bad ? "bad" : ""}`} role="group" aria-label={label}>
      <dt>{label}</dt>
      <dd>{value === undefined ? '–' : value.toLocaleString()}</dd>
      <dd class="hint">{hint ?? ' '}</dd>
    </div>
  );
}
