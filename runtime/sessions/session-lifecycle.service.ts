// Managing a session (canManage): rename, set the outcome, archive / unarchive, delete; each announced by session.changed.
/*
 * Every change rechecks visibility (uniform 404) and canManage (403) inside the writing unit of work, so a
 * membership removed or a session deleted since the request arrived wins. A change that changes nothing is
 * answered as done and announces nothing (idempotent retries).
 */
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { Session, SessionOutcome } from '../../storage/records/sessions.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { SessionEventBus, SessionEventOf } from '../events/index.js';
import { assertCanManage, visibleSession, type Caller } from './session-access.js';
import { sessionView, type SessionView } from './session-view.js';

export interface SessionPatch {
  /** Trimmed, 1-200 characters; null clears it. */
  title?: string | null;
  /** null clears it. */
  outcome?: SessionOutcome | null;
}

type Change = SessionEventOf<'session.changed'>['change'];

export interface LifecycleDeps {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
  bus: SessionEventBus;
}

export function createSessionLifecycle(deps: LifecycleDeps) {
  const { repos } = deps.store;

  /** Runs `change` on a session the caller may manage, in one unit of work; its outbox publishes the events after commit. */
  async function manage(caller: Caller, sessionId: string, change: (unitRepos: PortRepositories, session: Session, now: number) => Promise<Change[]>): Promise<void> {
    await deps.store.writer.submit(async (tx) => {
      const session = await visibleSession(tx.repos, caller, sessionId);
      await assertCanManage(tx.repos, caller, session);
      const changes = await change(tx.repos, session, deps.clock.now());
      for (const c of changes) await deps.bus.append(tx, session.id, { type: 'session.changed', change: c });
    });
  }

  function assertNotArchived(session: Session): void {
    if (session.status === 'archived') throw new AppError('CONFLICT', 'The session is archived: unarchive it first.', { reason: 'session_archived' });
  }

  const view = async (caller: Caller, sessionId: string): Promise<SessionView> => sessionView(repos, caller, await visibleSession(repos, caller, sessionId));

  return {
    /** PATCH: title and/or outcome; refused (409) on an archived session, which is read-only. */
    async update(caller: Caller, sessionId: string, patch: SessionPatch): Promise<SessionView> {
      await manage(caller, sessionId, async (unitRepos, session, now) => {
        assertNotArchived(session);
        const changes: Change[] = [];
        if (patch.title !== undefined && patch.title !== session.title) {
          await unitRepos.sessionList.setTitle(session.id, patch.title, now);
          changes.push('renamed');
        }
        if (patch.outcome !== undefined && patch.outcome !== session.outcome) {
          await unitRepos.sessionList.setOutcome(session.id, patch.outcome, caller.userId, now);
          changes.push('outcome_set');
        }
        return changes;
      });
      return view(caller, sessionId);
    },

    /** Archived: read-only (no messages, no rename or outcome); turns already queued or waiting still finish. */
    async setArchived(caller: Caller, sessionId: string, archived: boolean): Promise<SessionView> {
      await manage(caller, sessionId, async (unitRepos, session, now) => {
        if ((session.status === 'archived') === archived) return [];
        await unitRepos.sessionList.setArchived(session.id, archived, now);
        return [archived ? 'archived' : 'unarchived'];
      });
      return view(caller, sessionId);
    },

    /**
     * Deletes the session and its audit trail (messages, turns, tool calls, approvals, files, events). Refused
     * (409) while a turn is queued, running or waiting for approval: cancel it first. Subscribers get
     * `session.changed` `deleted` (published after commit; the stream then ends), and every read answers 404.
     */
    async remove(caller: Caller, sessionId: string): Promise<void> {
      await deps.store.writer.submit(async (tx) => {
        const session = await visibleSession(tx.repos, caller, sessionId);
        await assertCanManage(tx.repos, caller, session);
        if ((await tx.repos.sessionList.unsettledCount(session.id)) > 0) {
          throw new AppError('CONFLICT', 'A turn of this session has not finished: cancel it or wait, then delete.', { reason: 'turn_in_progress' });
        }
        // The event row goes with the cascade; its envelope still reaches the subscribers watching now.
        await deps.bus.append(tx, session.id, { type: 'session.changed', change: 'deleted' });
        await tx.repos.sessionList.remove(session.id);
      });
    },
  };
}

export type SessionLifecycle = ReturnType<typeof createSessionLifecycle>;
