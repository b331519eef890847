// Open a session on an agent and append messages to it (SPEC conversations rules 1-2), answering only after commit.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { Admission } from '../execution/admission.js';
import { notFound } from '../errors.js';
import type { SessionEventBus } from '../events/index.js';
import { newId } from '../ids.js';
import type { NormalizedCallerCredentials } from '../vault/index.js';
import type { CallerGrants } from '../turns/caller-grants.js';
import type { SessionOrigin, SessionStarter } from './contracts.js';
import type { SessionDispatcher } from '../turns/dispatcher.js';
import { assertCanAppend, assertCanExecute, visibleSession, type Caller } from './session-access.js';
import { admitExecution, writeExecution } from './session-starter.js';
import { admitted } from '../execution/admitted.js';
import type { Materializer } from '../execution/materializer.js';
import { sessionRowOf } from './pending-starts.js';

export interface MessageRequest {
  /** Trimmed, 1-8,000 characters (validated by the route). */
  readonly message: string;
  readonly callerCredentials?: NormalizedCallerCredentials;
  /** Recorded on a new session for the audit trail (default `api`); the MCP endpoint opens sessions as `mcp`. */
  readonly origin?: SessionOrigin;
  /** Open only: `personal` (visible to the opener alone, approvals become their confirmations) or `domain` (default). */
  readonly visibility?: 'personal' | 'domain';
}

export interface ConversationDeps {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
  bus: SessionEventBus;
  grants: CallerGrants;
  dispatcher: SessionDispatcher;
  starter: SessionStarter;
  admission: Pick<Admission, 'admit' | 'release'>;
  /** Writes an opened session's first turn after the accept committed the session row alone. */
  materializer: Pick<Materializer, 'accepted'>;
}

export function createConversationService(deps: ConversationDeps) {
  const { repos } = deps.store;
  return {
    /** Rule 1: a published Agent (else the uniform 404), executable by the key owner (else 403). 202 after commit. */
    /** `written` resolves once the session's execution and message rows exist (a caller that waits on the turn needs them). */
    async open(caller: Caller, automationId: string, request: MessageRequest): Promise<{ sessionId: string; executionId: string; written: Promise<void> }> {
      const automation = await repos.automations.automation(automationId);
      if (automation === undefined || automation.orgId !== caller.orgId || automation.kind !== 'agent' || automation.publishedRevision === null) {
        throw notFound();
      }
      await assertCanExecute(repos, caller, automation);
      // Default `domain`: rule 2's Operators, Editors and Owners may drive it. MCP opens personal chats (decisions.md).
      const planned = await deps.starter.plan({
        orgId: caller.orgId,
        automationId,
        actorUserId: caller.userId,
        origin: request.origin ?? 'api',
        visibility: request.visibility ?? 'domain',
        message: request.message,
        callerCredentials: request.callerCredentials,
      });
      if (planned.deferred === null) {
        // Caller credentials: sealed with the execution row, written now.
        await admitted(deps.admission, 1, () => deps.store.writer.submit((tx) => planned.write(tx)));
        planned.dispatch();
        return { sessionId: planned.sessionId, executionId: planned.executionId, written: Promise.resolve() };
      }
      // One row: the session, carrying its first turn; the materializer writes the execution and message after.
      const start = planned.deferred(deps.clock.now());
      const row = sessionRowOf(start, start);
      // Every check ran above: the unit only inserts, so it needs no savepoint of its own. It returns the insert's
      // answer for the writer to await (PostgreSQL: a promise; SQLite: a value, keeping the batch synchronous).
      await admitted(deps.admission, 1, () => deps.store.writer.submit((tx) => tx.repos.sessions.insertSession(row), { savepoint: false }));
      const written = deps.materializer.accepted({ kind: 'session', id: start.sessionId, starts: [start] });
      return { sessionId: planned.sessionId, executionId: planned.executionId, written };
    },

    /** Rule 2: visible (else 404) and drivable (else 403 SESSION_NOT_DRIVABLE); the turn queues behind earlier ones. */
    async append(caller: Caller, sessionId: string, request: MessageRequest): Promise<{ executionId: string }> {
      const session = await visibleSession(repos, caller, sessionId);
      await assertCanAppend(repos, caller, session);
      const start = await admitExecution(deps, {
        orgId: caller.orgId,
        automationId: session.automationId,
        actorUserId: caller.userId,
        origin: 'api',
        visibility: session.visibility,
        message: request.message,
        callerCredentials: request.callerCredentials,
      });
      const executionId = newId();
      await admitted(deps.admission, 1, () =>
        deps.store.writer.submit(async (tx) => {
          // Rechecked in the writing transaction: an archive or delete committed since the check above wins.
          await assertCanAppend(tx.repos, caller, await visibleSession(tx.repos, caller, sessionId));
          const now = deps.clock.now();
          const stored = await writeExecution(tx, deps, start, { sessionId, executionId }, 'message', now);
          await tx.repos.sessions.touchSession(sessionId, now);
          return stored;
        }),
      );
      deps.dispatcher.dispatch(sessionId);
      return { executionId };
    },
  };
}

export type ConversationService = ReturnType<typeof createConversationService>;
