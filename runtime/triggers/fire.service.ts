// Fires triggers: fan-out to subscribers, Run history, and fire idempotency, committed as one unit before the 202.
/*
 * Order of a keyed API fire (SPEC Trigger firing, "States and transitions", Errors):
 *   trigger in the caller's organization (404) -> caller may execute there (403) -> claim verdict: replay,
 *   409 in progress (Retry-After: 2), 409 reused -> active API trigger (404) -> hold the key -> plan every
 *   subscriber (nothing written) -> ONE unit of work writing ONE row: the run, carrying its Run history results,
 *   the completed claim and the session starts -> answer 202. The starts are handed to the materializer
 *   (runtime/execution/materializer.ts), which writes their sessions on the next loop turn and dispatches them.
 *   A start with caller credentials is written in the fire's unit instead (sealed grant bound to its execution)
 *   and dispatched after the answer.
 * A replay is answered before the trigger's state is looked at: a completed request replays even if the trigger
 * was paused since. Without a key every accepted request fires again.
 */
import type { FireRequestVerdict } from '../../machines/idempotency-claim.machine.js';
import type { FiringOutcome } from '../../machines/trigger-firing.machine.js';
import type { NewClaim } from '../../storage/records/fire-claims.js';
import type { RunSource } from '../../storage/records/trigger-runs.js';
import { isClaimConflict } from '../../storage/port/errors.js';
import type { Trigger } from '../../storage/records/triggers.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import type { UserPrincipal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { errorMessage } from '../actors/actor-failure.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ClaimSweeper } from './claim-sweeper.js';
import type { Admission } from '../execution/admission.js';
import type { Materializer, PendingStart } from '../execution/materializer.js';
import { admitted } from '../execution/admitted.js';
import type { SessionOrigin, SessionStarter } from '../sessions/contracts.js';
import { normalizeCallerCredentials, type KeyRing, type NormalizedCallerCredentials } from '../vault/index.js';
import { ClaimRaced, createFireClaims, inProgressError, keyReusedError, type ClaimRequest } from './fire-claims.js';
import { createFireFingerprinter } from './fire-fingerprint.js';
import type { FireBody } from './fire-request.js';
import { createSubscriberPlanner } from './fire-subscribers.js';
import { recordFiring } from './firing-record.js';
import { createBindingsReader } from './subscriber-bindings.js';
import { assertCanFire, assertFireable, triggerOfCaller } from './trigger-access.js';

export interface StartedSession {
  readonly automationId: string;
  readonly sessionId: string;
}

/** The 202 body (SPEC: `{ sessions }`, plus the Run history id). */
export interface FireResponseBody {
  readonly runId: string;
  readonly sessions: readonly StartedSession[];
}

export interface FanOutRequest {
  readonly trigger: Trigger;
  readonly source: RunSource;
  /** The key owner; null for schedule and event firings (they carry no caller). */
  readonly firedBy: string | null;
  readonly input: Record<string, unknown>;
  readonly credentials: NormalizedCallerCredentials | null;
  readonly credentialExpiresAt: number | null;
  readonly idempotencyKey?: string | null;
}

export interface FanOutResult extends FireResponseBody {
  readonly outcome: FiringOutcome;
  /** Hands the started sessions to their engines; call after the answer is on its way. */
  dispatch(): void;
}

export interface FireAnswer {
  readonly body: FireResponseBody;
  /** True for a completed claim's replay (header `Idempotency-Replayed: true`); nothing was started. */
  readonly replayed: boolean;
  /** The Run history outcome of a firing that ran now; absent on a replay. */
  readonly outcome?: FiringOutcome;
  dispatch(): void;
}

export interface FireService {
  /** `POST /triggers/fire` for a key owner. */
  fire(caller: UserPrincipal, body: FireBody, idempotencyKey: string | null, requestId: string): Promise<FireAnswer>;
  /**
   * Fans one event out to a trigger's subscribers and records it (schedule, event and API firings share it).
   * `alsoWrite` runs first inside the same unit of work (e.g. a schedule tick's markFired, an event's dedupe row),
   * writing through the unit's `tx.repos`: if it throws, nothing of the firing is written.
   */
  fanOut(request: FanOutRequest, alsoWrite?: AlsoWrite): Promise<FanOutResult>;
}

export interface FireServiceDeps {
  store: Storage;
  clock: Clock;
  logger: Logger;
  keyRing: KeyRing;
  sessionStarter: SessionStarter;
  /** Deletes expired claims (one durable timer for all); without one, expiry is still decided at request time. */
  sweeper?: ClaimSweeper;
  /** Bounds the execution queue: an API fire is refused (429) when its sessions would not fit. */
  admission: Pick<Admission, 'admit' | 'release' | 'enqueued'>;
  /** Writes the sessions a fire recorded on its run row; without one, every start is written in the fire's unit. */
  materializer?: Pick<Materializer, 'accepted'>;
}

/** Writes of a firing's caller in the firing's own unit (`tx.repos`), before the firing's. */
export type AlsoWrite = (repos: PortRepositories, runId: string, now: number) => Promise<void>;

const ORIGIN: Record<RunSource, SessionOrigin> = { api: 'trigger', schedule: 'schedule', event: 'event' };
const noop = (): void => {};
/** How a firing takes its idempotency claim inside its unit of work: the claim columns, and the error a key conflict becomes. */
interface Claimer {
  settle(tx: UnitContext<PortRepositories>, body: FireResponseBody, runId: string, now: number): Promise<NewClaim>;
  /** After the unit failed on the claim index: the committed winner's verdict, as the error to throw. */
  raced(repos: PortRepositories, now: number): Promise<Error>;
}

export function createFireService(deps: FireServiceDeps): FireService {
  const { store, clock } = deps;
  const { repos } = store;
  const fingerprint = createFireFingerprinter(deps);
  const claims = createFireClaims({ claims: repos.fireClaims, clock, sweeper: deps.sweeper });
  const planner = createSubscriberPlanner({ repos, bindings: createBindingsReader(repos.automations), starter: deps.sessionStarter, logger: deps.logger });

  /** Plans, then commits the run row (with the `claimer`'s claim) and any start that cannot wait, in one unit of work. */
  async function commitFiring(request: FanOutRequest, claimer: Claimer | null, alsoWrite?: AlsoWrite): Promise<FanOutResult> {
    const now = clock.now();
    const runId = newId();
    const credentials = request.credentials;
    const plans = await planner.plan({
      orgId: request.trigger.orgId,
      actorUserId: request.firedBy,
      origin: ORIGIN[request.source],
      trigger: request.trigger,
      runId,
      input: request.input,
      credentials,
      credentialExpiresAt: request.credentialExpiresAt,
    });
    const firing = recordFiring(
      {
        runId,
        triggerId: request.trigger.id,
        orgId: request.trigger.orgId,
        source: request.source,
        firedBy: request.firedBy,
        idempotencyKey: request.idempotencyKey ?? null,
        acceptedAt: now,
        suppliedIntegrationIds: credentials === null ? [] : Object.keys(credentials.integrations),
      },
      plans,
    );
    const sessions = plans.flatMap((p) => (p.start === null ? [] : [{ automationId: p.automationId, sessionId: p.start.sessionId }]));
    const body: FireResponseBody = { runId, sessions };
    const started = plans.flatMap((p) => (p.start === null ? [] : [p.start]));
    // Recorded on the run row for the materializer; a start with caller credentials (or no materializer) is written now.
    const deferred: PendingStart[] = [];
    const eager = deps.materializer === undefined ? started : started.filter((start) => start.deferred === null);
    if (deps.materializer !== undefined) for (const start of started) if (start.deferred !== null) deferred.push(start.deferred(now));
    const commit = () =>
      store.writer.submit(
        async (tx) => {
          // First, so a verdict that does not claim throws before anything is written.
          const claim = claimer === null ? null : await claimer.settle(tx, body, runId, now);
          await alsoWrite?.(tx.repos, runId, now);
          for (const start of eager) await start.write(tx);
          await firing.write(tx.repos.triggerRuns, { claim, pending: deferred.length === 0 ? null : deferred });
        },
        // Every check ran before the one write, and a run insert meeting the claim index writes nothing: no savepoint of its own.
        { savepoint: alsoWrite !== undefined || eager.length > 0 },
      ).catch(async (error: unknown) => {
        // The unique claim index is the guarantee of one firing per key: a conflict is answered like a duplicate. The
        // winner's claim is read after the unit, from committed state: PostgreSQL refuses every statement of a
        // transaction after a failed one, so a read inside the unit would fail (and answer 500).
        if (claimer !== null && isClaimConflict(error)) throw await claimer.raced(repos, now);
        throw error;
      });
    // API fires wait for room (429 OVERLOADED, nothing written); a schedule tick or an inbound event already
    // happened: refusing it would lose it, so it is counted in and the queue absorbs it.
    if (request.source === 'api') await admitted(deps.admission, sessions.length, commit);
    else {
      await commit();
      deps.admission.enqueued(sessions.length);
    }
    // Before the answer: a read naming one of these sessions finds them queued (and writes them first).
    deps.materializer?.accepted({ kind: 'run', id: runId, starts: deferred });
    return {
      runId,
      sessions,
      outcome: firing.outcome,
      dispatch() {
        for (const start of eager) {
          try {
            start.dispatch();
          } catch (error) {
            // The session is committed and queued: boot recovery or the next dispatch runs it.
            deps.logger.error({ runId, sessionId: start.sessionId, err: errorMessage(error) }, 'dispatch after fire failed');
          }
        }
      },
    };
  }

  async function fire(caller: UserPrincipal, body: FireBody, idempotencyKey: string | null, requestId: string): Promise<FireAnswer> {
    const trigger = await triggerOfCaller(repos, caller, body.triggerId);
    await assertCanFire(repos, caller, trigger);
    const credentials = body.callerCredentials === undefined ? null : normalizeCallerCredentials(body.callerCredentials);
    const request: FanOutRequest = {
      trigger,
      source: 'api',
      firedBy: caller.userId,
      input: body.input,
      credentials,
      credentialExpiresAt: body.callerCredentialExpiresAt === undefined ? null : Date.parse(body.callerCredentialExpiresAt),
      idempotencyKey,
    };
    if (idempotencyKey === null) {
      assertFireable(trigger);
      const result = await commitFiring(request, null);
      return { body: { runId: result.runId, sessions: result.sessions }, replayed: false, outcome: result.outcome, dispatch: result.dispatch };
    }

    const claim: ClaimRequest = {
      scope: caller.orgId,
      key: idempotencyKey,
      fingerprint: await fingerprint({ triggerId: trigger.id, input: body.input, callerCredentials: credentials }),
    };
    // The verdict and, when it runs the request, the key's in-process hold, taken in one synchronous stretch.
    const { verdict, release } = await claims.take(claim, clock.now());
    const early = answerWithoutRunning(verdict);
    if (early !== null || release === null) {
      release?.();
      if (early !== null) return early;
      throw new AppError('INTERNAL', 'An idempotency claim could not be taken.');
    }
    try {
      assertFireable(trigger);
      const result = await commitFiring(request, {
        settle: (tx, response, runId, now) => claims.settle(tx, claim, { verdict, owner: requestId, response: { status: 202, body: response }, runId, now }),
        raced: (committed, now) => claims.raced(committed, claim, now),
      });
      return { body: { runId: result.runId, sessions: result.sessions }, replayed: false, outcome: result.outcome, dispatch: result.dispatch };
    } catch (error) {
      if (!(error instanceof ClaimRaced)) throw error;
      const raced = answerWithoutRunning(error.verdict);
      if (raced === null) throw new AppError('INTERNAL', 'An idempotency claim could not be settled.');
      return raced;
    } finally {
      release();
    }
  }

  return { fire, fanOut: (request, alsoWrite) => commitFiring(request, null, alsoWrite) };
}

/** Replay, or throw the 409 the verdict calls for; null when the request should run. */
function answerWithoutRunning(verdict: FireRequestVerdict): FireAnswer | null {
  switch (verdict.kind) {
    case 'replay':
      return { body: verdict.response.body as FireResponseBody, replayed: true, dispatch: noop };
    case 'in-progress':
      throw inProgressError();
    case 'key-reused':
      throw keyReusedError();
    default:
      return null;
  }
}
