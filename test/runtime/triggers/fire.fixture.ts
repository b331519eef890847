// A fire service over a real store (the test storage mode's engine) with the fire workspace applied, and a recording SessionStarter.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ManualClock } from '../../../runtime/clock.js';
import { AppError } from '../../../runtime/errors.js';
import { newId } from '../../../runtime/ids.js';
import { applyManifest } from '../../../runtime/manifest/apply.js';
import { createScheduler } from '../../../runtime/scheduler/index.js';
import { createAdmission } from '../../../runtime/execution/admission.js';
import type { PlannedStart, SessionStarter, StartSessionRequest } from '../../../runtime/sessions/contracts.js';
import { createTriggerServices } from '../../../runtime/triggers/trigger-services.js';
import { createKeyRing } from '../../../runtime/vault/index.js';
import type { Storage } from '../../../storage/port/storage.js';
import { fireWorkspace } from '../../helpers/fire-workspace.js';
import { openTestStore } from '../../helpers/test-store.js';

export const T0 = Date.UTC(2026, 10, 22, 12);

/** Stands in for the sessions runtime: writes real session and execution rows, records plans and dispatches. */
export function recordingStarter(store: Storage, refuse: Map<string, AppError> = new Map()) {
  const planned: StartSessionRequest[] = [];
  const dispatched: string[] = [];
  const starter: SessionStarter = {
    async plan(request): Promise<PlannedStart> {
      const refusal = refuse.get(request.automationId);
      if (refusal !== undefined) throw refusal;
      planned.push(request);
      const sessionId = newId();
      const executionId = newId();
      return {
        sessionId,
        executionId,
        // Written in the fire's own unit (as a start with caller credentials is), so the rows can be checked at once.
        deferred: null,
        async write(tx) {
          const automation = (await tx.repos.automations.automation(request.automationId))!;
          const now = Date.now();
          await tx.repos.sessions.insertSession({
            id: sessionId, orgId: request.orgId, domainId: automation.domainId, automationId: automation.id, revision: automation.publishedRevision,
            visibility: request.visibility, createdBy: request.actorUserId, origin: request.origin, triggerRunId: request.triggerRunId ?? null,
            status: 'active', title: null, createdAt: now, updatedAt: now,
          });
          await tx.repos.executions.insertExecution({
            id: executionId, sessionId, status: 'queued', input: request.input ?? {}, createdBy: request.actorUserId,
            createdAt: now, revision: automation.publishedRevision, entry: 'open', grantIntegrationIds: [], grantExpiresAt: null,
          });
        },
        dispatch() {
          dispatched.push(sessionId);
        },
      };
    },
  };
  return { starter, planned, dispatched };
}

export async function fireFixture(t: { teardown(fn: () => unknown): void }, options: { refuse?: Map<string, AppError> } = {}) {
  const db = await openTestStore(t);
  const store = db.store;
  const clock = new ManualClock(T0);
  const keyRing = createKeyRing([{ keyId: 'k1', key: randomBytes(32) }]);
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({ write: (chunk, _e, done) => (logs.push(String(chunk)), done()) }));
  const workspace = fireWorkspace();
  const { refs } = await applyManifest(store, workspace, { clock, keyRing });
  const scheduler = createScheduler({ store, clock, logger });
  const recording = recordingStarter(store, options.refuse);
  // No execution side drains this queue (the recording starter runs nothing): a generous bound never refuses here.
  const admission = createAdmission({ queueLimitSeconds: 3_600, queueMaxExecutions: 1_000_000, initialRatePerSecond: 1_000 });
  const services = createTriggerServices({ store, clock, logger, keyRing, sessionStarter: recording.starter, scheduler, admission });
  await scheduler.start();
  // Added after the store's teardown, so it runs first (tap runs teardowns last-added first).
  t.teardown(() => scheduler.close());
  // Each user's organization, from the manifest (a principal is built synchronously, as the auth layer hands it over).
  const orgOfUser = new Map<string, string>();
  for (const org of workspace.organizations) for (const user of org.users) orgOfUser.set(user.ref, refs[org.ref]!);
  /** The principal a user's key resolves to. */
  const principal = (user: string) => {
    const userId = refs[user]!;
    return { kind: 'user' as const, via: 'api_key' as const, userId, orgId: orgOfUser.get(user)!, credentialId: 'test' };
  };
  return { store, sql: db.sql, clock, keyRing, logs, refs, scheduler, ...recording, ...services, principal };
}
