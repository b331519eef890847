// Custody of caller credentials for one execution: sealed at rest, opened only at call time, deleted at settle or expiry.
/*
 * SPEC "Caller credentials rules" 6, 7, 10, 11: a grant belongs to the execution whose request supplied it (a
 * later execution never sees it), is encrypted at rest (runtime/vault envelope, bound to grant, organization and
 * execution), is held until the execution settles or its declared expiry (a durable timer deletes it then), and
 * is replaced wholesale when an approval supplies new credentials. The execution row keeps only the integration
 * ids and the expiry, so a call after expiry is told apart from a call that never had a credential.
 */
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { Execution } from '../../storage/records/executions.js';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Scheduler } from '../scheduler/index.js';
import { SEALED_GRANT_VERSION, createGrantEnvelope, type KeyRing, type NormalizedCallerCredentials } from '../vault/index.js';

export const GRANT_EXPIRY_TIMER = 'caller-grant-expiry';

/**
 * SPEC Limits ("the custody window is also described as one hour"): a grant is held at most this long after it
 * was stored, or until an earlier declared `callerCredentialExpiresAt`. A turn parked longer resumes its gated call
 * as CALLER_CREDENTIAL_EXPIRED unless the approval brings replacement credentials (a new window starts then).
 */
export const CALLER_CUSTODY_MS = 60 * 60_000;

/** What a grant write needs of the caller's unit (its `tx.repos`). */
export type GrantRepos = Pick<PortRepositories, 'executions' | 'timers'>;

export interface CallerGrants {
  /**
   * Inside a unit of work, after the execution row: seals `credentials` as the execution's only grant (replacing
   * any earlier one) and records its integration ids and expiry, capped at CALLER_CUSTODY_MS from now. Returns
   * the ids held.
   */
  store(repos: GrantRepos, orgId: string, executionId: string, credentials: NormalizedCallerCredentials, expiresAt: number | null): Promise<string[]>;
  /** The decrypted grant, or null when the execution holds none. Call it right before the upstream call only. */
  open(execution: Pick<Execution, 'id' | 'sessionId'>, orgId: string): Promise<NormalizedCallerCredentials | null>;
  /** Inside a unit of work (its `tx.repos`): deletes the grant and its expiry timer (the execution settled). */
  discard(repos: GrantRepos, executionId: string): Promise<void>;
}

export function createCallerGrants(deps: { executions: PortRepositories['executions']; keyRing: KeyRing; scheduler: Scheduler; clock: Clock; writer: Storage['writer'] }): CallerGrants {
  const { scheduler, clock } = deps;
  const envelope = createGrantEnvelope(deps.keyRing);

  // The deadline is durable: a grant whose expiry passed while the process was down is deleted at boot.
  scheduler.on(GRANT_EXPIRY_TIMER, async (timer, delivery) => {
    await deps.writer.submit(async (tx) => {
      await delivery.markFired(tx.repos);
      await tx.repos.executions.deleteGrants(timer.targetId);
    });
  });

  return {
    async store(repos, orgId, executionId, credentials, declaredExpiry) {
      const { executions } = repos;
      await executions.deleteGrants(executionId);
      const integrationIds = Object.keys(credentials.integrations).sort();
      const now = clock.now();
      const expiresAt = Math.min(declaredExpiry ?? Infinity, now + CALLER_CUSTODY_MS);
      if (integrationIds.length === 0) {
        await executions.setGrantFacts(executionId, [], null, now);
        await scheduler.cancel(repos, GRANT_EXPIRY_TIMER, executionId);
        return [];
      }
      const grantId = newId();
      const sealed = envelope.sealGrant({ grantId, orgId, executionId, credentials });
      await executions.insertGrant({
        id: grantId,
        orgId,
        executionId,
        keyId: sealed.keyId,
        wrappedKey: sealed.wrappedKey,
        iv: sealed.iv,
        tag: sealed.tag,
        ciphertext: sealed.ciphertext,
        integrationIds,
        expiresAt,
        createdAt: now,
      });
      await executions.setGrantFacts(executionId, integrationIds, expiresAt, now);
      await scheduler.schedule(repos, { kind: GRANT_EXPIRY_TIMER, targetId: executionId, dueAt: expiresAt });
      return integrationIds;
    },

    async open(execution, orgId) {
      const row = await deps.executions.grantOf(execution.id);
      if (row === undefined) return null;
      return envelope.openGrant(
        { version: SEALED_GRANT_VERSION, keyId: row.keyId, wrappedKey: row.wrappedKey, iv: row.iv, tag: row.tag, ciphertext: row.ciphertext },
        { grantId: row.id, orgId, executionId: execution.id },
      );
    },

    async discard(repos, executionId) {
      // Most executions never held a grant: one indexed read instead of a delete and a timer cancel that change
      // nothing (four statements and a scheduler poke on every settle; issue 12: no no-op writes). A grant without
      // an expiry never had a timer.
      const grant = await repos.executions.grantOf(executionId);
      if (grant === undefined) return;
      await repos.executions.deleteGrants(executionId);
      if (grant.expiresAt !== null) await scheduler.cancel(repos, GRANT_EXPIRY_TIMER, executionId);
    },
  };
}
