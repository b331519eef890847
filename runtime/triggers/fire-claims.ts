// Fire idempotency claims: each keyed fire drives one idempotency-claim actor, persisted on the run it answered.
/*
 * Protocol (SPEC "States and transitions", idempotency rows; Limits):
 * - Read path, no write: the request's verdict from the committed claim (fireRequestVerdict). A key whose
 *   original is still being planned or committed in this process is "in progress" from memory (`hold`).
 * - Write path: `settle` runs inside the fire's own unit of work, from the verdict `take` read: the in-process
 *   check, after the read, and the hold run in one synchronous stretch, and the key stays held until the unit
 *   committed, so no request of this process can commit the key in between and the claim is not read again. CLAIM and COMPLETE are applied
 *   together and the completed claim is returned for the run row, which the fire inserts with it (one row: the
 *   claim, the firing and its session plan commit as one). The unique index trigger_runs_claim is the guarantee
 *   (one live claim per key): if the insert still meets a claim, `raced` reads it and the fire answers from it,
 *   as a duplicate would. "In progress" is never durable. A crash before that commit leaves no claim and nothing
 *   answered, so a retry runs fresh; no lease needs to be recovered at boot.
 * - 24 hours after creation the claim expires (the key is reusable at once, by the verdict at request time);
 *   the claim sweeper (claim-sweeper.ts: one timer for all claims) deletes the row later.
 * The claim columns of the run row are the machine's stored record (state + context), driven through the shared
 * durable step (runtime/actors/durable-step.ts): columns -> snapshot (resolve), the pure step, the columns it
 * reached. Keyed by (organization, key) and swept by expiry, which a generic snapshot row is not.
 */
import {
  fireRequestVerdict,
  idempotencyClaimMachine,
  type FireRequestVerdict,
  type IdempotencyClaimEvent,
  type IdempotencyClaimSnapshot,
  type StoredResponse,
} from '../../machines/idempotency-claim.machine.js';
import type { FireClaim, NewClaim } from '../../storage/records/fire-claims.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import type { UnitContext } from '../../storage/port/unit.js';
import { durableMachine } from '../actors/durable-step.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { ClaimSweeper } from './claim-sweeper.js';

/** How long a claim may stay in progress before another request may take it over (machine lease). */
export const CLAIM_LEASE_MS = 60_000;
/** SPEC Limits: `Retry-After: 2` on IDEMPOTENCY_IN_PROGRESS. */
export const RETRY_AFTER_SECONDS = 2;

export interface ClaimRequest {
  /** The key owner's organization (SPEC Limits: fire keys are scoped to it). */
  readonly scope: string;
  readonly key: string;
  /** Hex HMAC of the request (fire-fingerprint.ts). */
  readonly fingerprint: string;
}

/** Thrown inside the unit of work when the committed claim no longer lets this request take it; nothing was written. */
export class ClaimRaced extends Error {
  constructor(readonly verdict: FireRequestVerdict) {
    super('The idempotency claim was taken by another request.');
    this.name = 'ClaimRaced';
  }
}

export function inProgressError(): AppError {
  return new AppError('IDEMPOTENCY_IN_PROGRESS', 'The original request with this Idempotency-Key is still running; retry the identical request.', undefined, {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

export function keyReusedError(): AppError {
  return new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request (target, input or callerCredentials).');
}

/** A verdict, and for one that runs the request, the release of the key it holds (null otherwise). */
export interface TakenVerdict {
  readonly verdict: FireRequestVerdict;
  readonly release: (() => void) | null;
}

/** The unit a claim is settled in: the claim columns and the sweep timer through `tx.repos`, its outbox. */
export type ClaimUnit = UnitContext<Pick<PortRepositories, 'fireClaims' | 'timers'>>;

export interface FireClaims {
  /**
   * What this request gets now: claim (run it), replay, in progress or reused. No write. A verdict that runs the
   * request holds the key in this process (in progress to others) until its release runs: the held check is made
   * again after the read, in the same synchronous stretch as the hold, so two requests never both take a key.
   */
  take(request: ClaimRequest, now: number): Promise<TakenVerdict>;
  /**
   * Inside the fire's unit of work, before its run row: from the claiming `verdict` this request got (and held
   * since), takes and completes the claim with the response (an expired claim's key is given up first) and
   * returns the claim columns the run row is inserted with; throws ClaimRaced for a verdict that does not claim.
   */
  settle(tx: ClaimUnit, request: ClaimRequest, settle: { verdict: FireRequestVerdict; owner: string; response: StoredResponse; runId: string; now: number }): Promise<NewClaim>;
  /** When the run insert met the unique claim index anyway (inside that unit): the error to throw, with the verdict of the claim it met. */
  raced(repos: Pick<PortRepositories, 'fireClaims'>, request: ClaimRequest, now: number): Promise<ClaimRaced>;
}

const scopedKey = (scope: string, key: string): string => `${scope}:${key}`;

/** Completed claims whose replays are answered from memory, per process (oldest dropped first past this). */
export const REPLAY_CACHE_ENTRIES = 4096;

/*
 * A retried request (a client's timeout, a queue's redelivery, a load test's replay) reads and restores the same
 * completed claim each time. A completed claim cannot change before its window elapses: only an expired claim is
 * swept or taken over, and only its trigger's deletion removes it early. So the restored snapshot is kept, and the
 * machine's own verdict (fireRequestVerdict) is asked of it again; only a `replay` is answered from memory. Anything
 * else (the window elapsed, another fingerprint) goes back to the stored claim: a key-reused request may meet a claim
 * its trigger's deletion removed, and the verdict from the store is the truth then. A replay's fingerprint covers its
 * trigger id, and the caller just found that trigger, so its claim is still stored. Across nodes the same holds: a
 * completed claim is the same row on every node until it expires.
 */
function createReplayCache(limit: number) {
  const snapshots = new Map<string, IdempotencyClaimSnapshot>();
  return {
    verdict(scoped: string, fingerprint: string, now: number): FireRequestVerdict | null {
      const snapshot = snapshots.get(scoped);
      if (snapshot === undefined) return null;
      const verdict = fireRequestVerdict(snapshot, { fingerprint, now });
      if (verdict.kind === 'replay') return verdict;
      snapshots.delete(scoped);
      return null;
    },
    remember(scoped: string, snapshot: IdempotencyClaimSnapshot): void {
      if (snapshots.size >= limit) snapshots.delete(snapshots.keys().next().value as string);
      snapshots.set(scoped, snapshot);
    },
  };
}

type ClaimMachine = ReturnType<typeof durableMachine<typeof idempotencyClaimMachine>>;

/** The fresh claim a CLAIM + COMPLETE from the initial state reaches: when it was created and when it expires. */
export interface FreshClaim {
  readonly createdAt: number;
  readonly expiresAt: number;
}

type ClaimTaken = { now: number; fingerprint: string; owner: string; response: StoredResponse };

/**
 * The machine's own step for a request taking a key: from `from` (the initial state for a fresh key, a restored
 * claim otherwise), the `lead` events that free it (none, an expiry TICK, RELEASE_ABANDONED), then CLAIM + COMPLETE;
 * null unless it completes with both times.
 */
export function foldClaim(durable: ClaimMachine, from: IdempotencyClaimSnapshot, lead: readonly IdempotencyClaimEvent[], claim: ClaimTaken): FreshClaim | null {
  const { now, fingerprint, owner, response } = claim;
  const { snapshot: next } = durable.step(from, [...lead, { type: 'CLAIM', now, fingerprint, owner, leaseMs: CLAIM_LEASE_MS }, { type: 'COMPLETE', now, owner, response }]);
  const c = next.context;
  if (!next.matches('completed') || c.createdAt === null || c.expiresAt === null) return null;
  return { createdAt: c.createdAt, expiresAt: c.expiresAt };
}

/*
 * Every keyed fire with a fresh key (nearly all of them) took that same two-event step, ~4 % of an accept-only fire's
 * CPU, for two numbers: the claim is created at the request's time and expires a fixed window later. The window is
 * read off the machine once, by folding it at two distant times; when both folds complete and agree, a fresh claim
 * is `now + window` without a fold, otherwise every fire folds as before. test/runtime/triggers/fire-claims-fresh.test.ts
 * checks the derived claim against the machine's fold over generated times, fingerprints, owners and responses.
 */
export function deriveFreshClaim(durable: ClaimMachine, absent: IdempotencyClaimSnapshot): ((now: number) => FreshClaim) | null {
  const probe = (now: number, tag: string) => foldClaim(durable, absent, [], { now, fingerprint: `probe-${tag}`, owner: `owner-${tag}`, response: { status: 202, body: { tag } } });
  const a = probe(0, 'a');
  const b = probe(1_700_000_000_000, 'b');
  if (a === null || b === null || a.createdAt !== 0 || b.createdAt !== 1_700_000_000_000) return null;
  const window = a.expiresAt;
  if (b.expiresAt - b.createdAt !== window) return null;
  return (now) => ({ createdAt: now, expiresAt: now + window });
}

export function createFireClaims(deps: { claims: PortRepositories['fireClaims']; clock: Clock; sweeper?: ClaimSweeper }): FireClaims {
  const { claims } = deps;
  const durable = durableMachine(idempotencyClaimMachine);
  /**
   * The machine's initial state, once: a key with no stored claim is judged from it (the verdict reads its state,
   * never its key), instead of starting a machine per fresh key on the accept path (~25 µs a fire).
   */
  const absent = durable.start({ key: '' }).snapshot;
  const fresh = deriveFreshClaim(durable, absent);

  /** scoped key -> fingerprint of the request holding it in this process. */
  const inFlight = new Map<string, string>();
  const replays = createReplayCache(REPLAY_CACHE_ENTRIES);

  function restore(scoped: string, row: FireClaim | undefined): IdempotencyClaimSnapshot {
    if (row === undefined) return durable.start({ key: scoped }).snapshot;
    // Only completed claims are stored; the owner (the request that took it) is not kept once it completed.
    return durable.resolve('completed', {
      key: scoped,
      fingerprint: row.fingerprint.toString('hex'),
      owner: null,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
      leaseExpiresAt: null,
      response: { status: row.statusCode, body: JSON.parse(row.response) as unknown },
      refusalCode: null,
      indeterminateReason: null,
      settledAt: row.leaseUntil,
    });
  }

  /** The events that free the claim for a fresh request, per verdict; null when the request may not take it. */
  function leadIn(verdict: FireRequestVerdict, now: number): IdempotencyClaimEvent[] | null {
    switch (verdict.kind) {
      case 'claim':
        return [];
      case 'expire-then-claim':
        return [{ type: 'TICK', now }];
      case 'release-then-claim':
        return [{ type: 'RELEASE_ABANDONED', now }];
      default:
        return null;
    }
  }

  /** The verdict of a key held in this process, or null when it is not held. */
  function heldVerdict(scoped: string, request: ClaimRequest): FireRequestVerdict | null {
    const held = inFlight.get(scoped);
    if (held === undefined) return null;
    return held === request.fingerprint ? { kind: 'in-progress' } : { kind: 'key-reused' };
  }

  const runs = (verdict: FireRequestVerdict): boolean => leadIn(verdict, 0) !== null;

  return {
    async take(request, now) {
      const scoped = scopedKey(request.scope, request.key);
      const before = heldVerdict(scoped, request);
      if (before !== null) return { verdict: before, release: null };
      const remembered = replays.verdict(scoped, request.fingerprint, now);
      if (remembered !== null) return { verdict: remembered, release: null };
      const row = await claims.get(request.scope, request.key);
      // Another request of this process may have taken the key while this one read: it is in progress then.
      const during = heldVerdict(scoped, request);
      if (during !== null) return { verdict: during, release: null };
      const stored = row === undefined ? absent : restore(scoped, row);
      const verdict = fireRequestVerdict(stored, { fingerprint: request.fingerprint, now });
      if (verdict.kind === 'replay') replays.remember(scoped, stored);
      if (!runs(verdict)) return { verdict, release: null };
      inFlight.set(scoped, request.fingerprint);
      return { verdict, release: () => void inFlight.delete(scoped) };
    },

    async settle(tx, request, { verdict, owner, response, runId, now }) {
      const { fireClaims } = tx.repos;
      const scoped = scopedKey(request.scope, request.key);
      const lead = leadIn(verdict, now);
      if (lead === null) throw new ClaimRaced(verdict);
      // A fresh key has no stored claim to restore (the common case: no read). An expired (or abandoned) claim is
      // read to step from it, then gives its key up; its run stays in Run history.
      // The sweep may have cleared that claim since the verdict: the key is then simply fresh.
      const stored = verdict.kind === 'claim' ? undefined : await fireClaims.get(request.scope, request.key);
      if (stored !== undefined) await fireClaims.delete(request.scope, request.key);
      // A fresh key: the claim derived from the machine (`fresh`), or its fold from the initial state computed once
      // (`absent`, whose context key is '': only the emitted `claim.scheduled`, not used here, carries the key).
      const taken: ClaimTaken = { now, fingerprint: request.fingerprint, owner, response };
      const claim =
        stored === undefined
          ? (fresh?.(now) ?? foldClaim(durable, absent, [], taken))
          : foldClaim(durable, restore(scoped, stored), lead, taken);
      if (claim === null) throw new AppError('INTERNAL', 'The idempotency-claim machine did not complete a fresh claim.');
      await deps.sweeper?.armFor(tx, claim.expiresAt);
      return { key: request.key, fingerprint: Buffer.from(request.fingerprint, 'hex'), response: JSON.stringify(response.body), expiresAt: claim.expiresAt };
    },

    async raced(repos, request, now) {
      const stored = restore(scopedKey(request.scope, request.key), await repos.fireClaims.get(request.scope, request.key));
      return new ClaimRaced(fireRequestVerdict(stored, { fingerprint: request.fingerprint, now }));
    },
  };
}

