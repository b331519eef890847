// Approval-window and custody timers are durable: armed in one process, SIGKILLed, they fire in the next (issue 13 item 2).
/*
 * A child process runs the service (test/e2e/crash.child.ts) on a temp file database; the crm upstream is a loopback
 * server here. Boot 1 parks two turns on approvals (each holding a caller grant, no declared expiry) and is
 * SIGKILLed. Boot 2 starts with its clock 61 minutes later: the custody timers fire at boot, so approving one turn
 * without credentials resumes its gated call as CALLER_CREDENTIAL_EXPIRED; it is SIGKILLed too. Boot 3 starts 24 h
 * + 2 min after boot 1: the other approval's window fires at boot, its turn fails APPROVAL_EXPIRED and its
 * approvalId gets 409. No process was alive when either deadline passed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openStore } from '../../storage/store.js';
import type { LiveChild } from '../helpers/crash-harness.js';
import { useServiceChildren } from '../helpers/service-children.js';
import { crmCredentials } from '../http/sessions/conversation-fixture.js';

const T0 = Date.UTC(2026, 10, 22, 10, 0);
const MINUTE = 60_000;
const UPGRADE = '{"id": "c-1", "tier": "enterprise"}';

t.setTimeout(120_000);

t.test('approval expiry and custody timers fire after a SIGKILL, at the next boot', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-deadlines-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'deadlines.db');
  const children = await useServiceChildren(t);
  const { upstream } = children;
  let live: LiveChild | null = null;
  const boot = async (at: number, options: { first?: boolean; last?: boolean } = {}) => {
    const manifest = options.first ? children.workspace() : undefined;
    live = await children.boot(() => ({ dbPath, clockOffsetMs: at - Date.now(), manifest }), { last: options.last });
    await live.idle();
    return live;
  };
  const api = (method: string, path: string, body?: unknown) => children.api(live!, method, path, body);
  const view = async (sessionId: string) => (await api('GET', `/agents/sessions/${sessionId}`)).json;

  // Boot 1: two turns park on their approvals, each holding ada's crm grant.
  await boot(T0, { first: true });
  const parked: Array<{ sessionId: string; approvalId: string }> = [];
  for (let i = 0; i < 2; i++) {
    const opened = await api('POST', `/agents/${children.refs.upgrader}/sessions`, { message: UPGRADE, callerCredentials: crmCredentials() });
    t.equal(opened.status, 202);
    await live!.idle();
    const seen = await view(opened.json.sessionId);
    t.equal(seen.latestTurn.status, 'suspended');
    parked.push({ sessionId: opened.json.sessionId, approvalId: seen.pendingApprovalId });
  }
  const [custody, window] = parked as [(typeof parked)[0], (typeof parked)[0]];
  await live!.kill();
  live = null;

  // Boot 2, 61 minutes on: custody (one hour) ended while no process ran; the approval window (24 h) has not.
  await boot(T0 + 61 * MINUTE);
  t.equal((await view(window.sessionId)).pendingApprovalId, window.approvalId, 'the window is still open');
  const approved = await api('POST', `/agents/sessions/${custody.sessionId}/turn-approval`, { decision: 'approved', approvalId: custody.approvalId });
  t.equal(approved.status, 200);
  await live!.idle();
  const resumed = await view(custody.sessionId);
  t.match(resumed.toolCalls[1], { toolName: 'crm.update_contact', status: 'failed', errorCode: 'CALLER_CREDENTIAL_EXPIRED' });
  t.equal(upstream.received.filter((r) => r.method === 'PATCH').length, 0, 'no write ran without a grant');
  await live!.kill();
  live = null;

  // Boot 3, 24 h 2 min after boot 1: the approval window closed while no process ran.
  await boot(T0 + 24 * 60 * MINUTE + 2 * MINUTE, { last: true });
  const expired = await view(window.sessionId);
  t.match(expired.latestTurn, { status: 'failed', errorCode: 'APPROVAL_EXPIRED' });
  t.equal(expired.pendingApproval, null);
  const late = await api('POST', `/agents/sessions/${window.sessionId}/turn-approval`, { decision: 'approved', approvalId: window.approvalId });
  t.equal(late.status, 409);
  t.equal(late.json.error.code, 'APPROVAL_CONFLICT');
  await live!.stop();
  live = null;

  const store = openStore({ path: dbPath });
  t.teardown(() => store.close());
  t.equal(store.db.prepare('SELECT COUNT(*) FROM caller_grants').pluck().get(), 0, 'no grant survived its custody');
  const timers = store.db.prepare(`SELECT kind, fired_at IS NOT NULL AS fired FROM timers WHERE kind IN ('approval-expiry', 'caller-grant-expiry') ORDER BY kind`).all();
  t.same(timers, [
    { kind: 'approval-expiry', fired: 1 },
    { kind: 'caller-grant-expiry', fired: 1 },
    { kind: 'caller-grant-expiry', fired: 1 },
  ], 'the window of the decided approval was disarmed; every other timer fired');
  t.match(store.db.prepare('SELECT status, error_code FROM executions WHERE session_id = ?').get(window.sessionId), { status: 'failed', error_code: 'APPROVAL_EXPIRED' });
});
