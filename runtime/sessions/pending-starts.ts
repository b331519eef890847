// A session start recorded at accept (runtime/execution/materializer.ts) and the rows it becomes when written.
import type { NewSession } from '../../storage/records/sessions.js';
import type { PendingStart } from '../execution/materializer.js';
import type { AdmittedExecution } from './session-starter.js';

/** The record of an admitted start without caller credentials (a start with them is written at accept, sealed). */
export function pendingStartOf(start: AdmittedExecution, ids: { sessionId: string; executionId: string }, acceptedAt: number): PendingStart {
  const { request, automation } = start;
  // Built property by property, not with spreads: on Node 20 `{ ...ids, <eight more> }` costs ~5 µs (each later
  // property takes V8's slow path), this ~0.1; the keys and their order (the stored JSON) are the same.
  const pending: Mutable<Omit<PendingStart, 'acceptedAt'>> & { acceptedAt?: number } = {
    sessionId: ids.sessionId,
    executionId: ids.executionId,
    orgId: request.orgId,
    domainId: automation.domainId,
    automationId: automation.id,
    revision: start.admitted.revision,
    visibility: request.visibility,
    origin: request.origin,
    actorUserId: request.actorUserId,
  };
  if (request.triggerRunId !== undefined) pending.triggerRunId = request.triggerRunId;
  if (automation.kind === 'flow') pending.input = request.input ?? {};
  else pending.message = request.message;
  pending.acceptedAt = acceptedAt;
  return pending as PendingStart;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The session of a start; `pending` carries the start itself when the session row is the accept's only row. */
export function sessionRowOf(start: PendingStart, pending: PendingStart | null): NewSession {
  return {
    id: start.sessionId,
    orgId: start.orgId,
    domainId: start.domainId,
    automationId: start.automationId,
    revision: start.revision,
    visibility: start.visibility,
    createdBy: start.actorUserId,
    origin: start.origin,
    triggerRunId: start.triggerRunId ?? null,
    status: 'active',
    title: null,
    createdAt: start.acceptedAt,
    updatedAt: start.acceptedAt,
    ...(pending === null ? {} : { pending }),
  };
}
