// The crash test's mixed HTTP load: workers send owed retries first, then a weighted mix, until the kill.
/*
 * Every request is written into the ledger (crash-ledger.ts) before it is sent and its answer after. Requests
 * that were cut off by a SIGKILL and carry an idempotency key (fires, provisioning, inbound events by webhook-id)
 * or decide an approval are retried after the restart, as a client would: keyed retries must replay or run once,
 * never duplicate. Opens and appends carry no key, so they are never retried.
 */
import { Agent } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { send, type Reply } from '../helpers/crash-harness.js';
import {
  CALLER_TOKEN,
  SIGNUP_SECRET,
  type AppendRecord,
  type DecisionRecord,
  type EventRecord,
  type FireAnswer,
  type FireRecord,
  type Ledger,
  type OpenRecord,
  type Owed,
  type ProvisionRecord,
  type Target,
} from './crash-ledger.js';

type Op = (ledger: Ledger, target: Target, agent: Agent) => Promise<void>;

const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
const callerCredentials = () => ({ integrations: { crm: { token: CALLER_TOKEN } } });

function expect(ledger: Ledger, what: string, reply: Reply, ...statuses: number[]): boolean {
  if (statuses.includes(reply.status)) return true;
  ledger.wrong.push(`${what}: ${reply.status} ${reply.text.slice(0, 300)}`);
  return false;
}

const openSession = (agent: 'lookup' | 'upgrader'): Op => async (ledger, target, http) => {
  const n = ledger.next();
  const record: OpenRecord = { agent, contactId: `${agent === 'lookup' ? 'c' : 'u'}-${n}` };
  ledger.opens.push(record);
  // lookup reads with the caller's credential or the organization's; upgrader requires the caller's.
  const body =
    agent === 'lookup'
      ? { message: `id: ${record.contactId}`, ...(n % 2 === 0 ? { callerCredentials: callerCredentials() } : {}) }
      : { message: JSON.stringify({ id: record.contactId, tier: 'enterprise' }), callerCredentials: callerCredentials() };
  const user = agent === 'lookup' ? 'bob-key' : 'ada-key';
  const reply = await send(http, target.port, 'POST', `/api/v1/agents/${target.refs[agent]}/sessions`, bearer(target.refs[user]!), body);
  if (!expect(ledger, `open ${agent} ${record.contactId}`, reply, 202)) return;
  record.answer = { sessionId: reply.json.sessionId, executionId: reply.json.executionId };
  if (agent === 'lookup') ledger.lookupSessions.push(record.answer.sessionId);
  else ledger.gated.set(record.answer.sessionId, { sessionId: record.answer.sessionId, contactId: record.contactId, taken: false });
};

const appendMessage: Op = async (ledger, target, http) => {
  const sessionId = pick(ledger.lookupSessions);
  if (sessionId === undefined) return openSession('lookup')(ledger, target, http);
  const record: AppendRecord = { sessionId };
  ledger.appends.push(record);
  const message = `id: c-${ledger.next()}`;
  const reply = await send(http, target.port, 'POST', `/api/v1/agents/sessions/${sessionId}/messages`, bearer(target.refs['bob-key']!), { message });
  if (expect(ledger, `append to ${sessionId}`, reply, 200)) record.answer = { executionId: reply.json.executionId };
};

const FIRE_TARGETS = ['new-lead', 'new-lead', 'quiet', 'quiet', 'empty', 'fan'] as const;

const newFire: Op = (ledger, target, http) => {
  const n = ledger.next();
  const trigger = pick(FIRE_TARGETS)!;
  const contactId = `f-${n}`;
  const body: Record<string, unknown> = { triggerId: target.refs[trigger], input: { id: contactId, n } };
  if (trigger === 'fan') {
    // The upgrader subscriber requires caller credentials; half of them expire before the next boot.
    body.callerCredentials = callerCredentials();
    if (n % 2 === 0) body.callerCredentialExpiresAt = new Date(target.now() + 3 * 60_000).toISOString();
  }
  // Mostly keyed (retried after a kill); an unkeyed fire cut off by a kill is simply lost to the client.
  const record: FireRecord = { key: n % 5 === 4 ? null : `crash-${n}`, trigger, body: JSON.stringify(body), contactId, attempts: 0 };
  ledger.fires.push(record);
  return sendFire(ledger, target, http, record);
};

async function sendFire(ledger: Ledger, target: Target, http: Agent, record: FireRecord): Promise<void> {
  record.attempts += 1;
  const headers: Record<string, string> = { ...bearer(target.refs['bob-key']!), 'content-type': 'application/json' };
  if (record.key !== null) headers['idempotency-key'] = record.key;
  const reply = await send(http, target.port, 'POST', '/api/v1/triggers/fire', headers, record.body);
  if (!expect(ledger, `fire ${record.trigger} key ${record.key}`, reply, 202)) return;
  const answer = reply.json as FireAnswer;
  if (record.answer !== undefined) {
    // A retry of an answered key: the stored answer, marked as a replay.
    if (reply.headers['idempotency-replayed'] !== 'true' || JSON.stringify(answer) !== JSON.stringify(record.answer)) {
      ledger.wrong.push(`fire ${record.key}: answered ${JSON.stringify(record.answer)}, the retry got ${reply.text}`);
    } else ledger.replays += 1;
    return;
  }
  record.answer = answer;
  for (const s of answer.sessions) {
    if (s.automationId === target.refs.upgrader) ledger.gated.set(s.sessionId, { sessionId: s.sessionId, contactId: record.contactId, taken: false });
  }
}

/** Replays an answered key now and then: the original answer must come back. */
const replayFire: Op = async (ledger, target, http) => {
  const record = pick(ledger.fires.filter((f) => f.key !== null && f.answer !== undefined));
  if (record === undefined) return newFire(ledger, target, http);
  return sendFire(ledger, target, http, record);
};

const decide: Op = async (ledger, target, http) => {
  const session = pick([...ledger.gated.values()].filter((g) => !g.taken));
  if (session === undefined) return openSession('upgrader')(ledger, target, http);
  session.taken = true;
  const view = await send(http, target.port, 'GET', `/api/v1/agents/sessions/${session.sessionId}`, bearer(target.refs['ada-key']!));
  if (!expect(ledger, `view ${session.sessionId}`, view, 200)) return;
  const approvalId = view.json.pendingApprovalId as string | null;
  if (approvalId === null) {
    // Not parked yet (still queued or running): another worker may try later.
    if (view.json.latestTurn?.status !== 'failed') session.taken = false;
    return;
  }
  const n = ledger.next();
  const decision: DecisionRecord = { sessionId: session.sessionId, approvalId, decision: n % 10 === 0 ? 'rejected' : 'approved', attempts: 0 };
  // Some approvers edit the arguments (the note names the approval, so the upstream write says whose it is).
  if (decision.decision === 'approved' && n % 3 === 0) decision.editedArgs = { id: session.contactId, tier: 'pro', note: approvalId };
  ledger.decisions.push(decision);
  return sendDecision(ledger, target, http, decision);
};

async function sendDecision(ledger: Ledger, target: Target, http: Agent, record: DecisionRecord): Promise<void> {
  record.attempts += 1;
  const body = { decision: record.decision, approvalId: record.approvalId, ...(record.editedArgs ? { editedArgs: record.editedArgs } : {}) };
  const reply = await send(http, target.port, 'POST', `/api/v1/agents/sessions/${record.sessionId}/turn-approval`, bearer(target.refs['ada-key']!), body);
  // A retry may find its cut-off original committed: nothing waits any more (checked against the DB at the end).
  const allowed = record.attempts > 1 ? [200, 409] : [200];
  if (!expect(ledger, `decide ${record.approvalId}`, reply, ...allowed)) return;
  if (reply.status === 409 && reply.json?.error?.code !== 'APPROVAL_CONFLICT') return void ledger.wrong.push(`decide ${record.approvalId}: ${reply.text}`);
  record.answered = reply.status as 200 | 409;
}

const newProvision: Op = (ledger, target, http) => {
  const n = ledger.next();
  const record: ProvisionRecord = {
    key: `prov-${n}`,
    body: { clientName: `Customer ${n}`, clientSegment: `crash-${n}`, ownerEmail: `owner-${n}@crash.example`, ownerName: 'Olive Owner' },
    attempts: 0,
  };
  ledger.provisions.push(record);
  return sendProvision(ledger, target, http, record);
};

async function sendProvision(ledger: Ledger, target: Target, http: Agent, record: ProvisionRecord): Promise<void> {
  record.attempts += 1;
  const headers = { ...bearer(target.refs['northwind-key']!), 'idempotency-key': record.key };
  const reply = await send(http, target.port, 'POST', '/api/partner/v1/organizations', headers, record.body);
  // A retry after a kill: a replay, a fresh run (nothing had committed), or "outcome unknown" (the claim's
  // owner died after the customer was created; its lease resolved the claim). Never "in progress" for good.
  const allowed = record.attempts > 1 ? [202, 409] : [202];
  if (!expect(ledger, `provision ${record.key}`, reply, ...allowed)) return;
  if (reply.status === 409) {
    if (reply.json?.error?.code !== 'IDEMPOTENCY_OUTCOME_UNKNOWN') return void ledger.wrong.push(`provision ${record.key}: ${reply.text}`);
    record.answer = 'unknown';
    return;
  }
  record.answer = { orgId: reply.json.organization.id };
}

/** A `contact.created` delivery big enough to pass the signup trigger's filter (seats > 50). */
const newEvent: Op = (ledger, target, http) => {
  const n = ledger.next();
  const id = `e-${n}`;
  const body = JSON.stringify({ type: 'contact.created', data: { id, contact: { id, email: `${id}@crash.example`, tier: 'pro', seats: 60 + n } } });
  const record: EventRecord = { messageId: `msg-${n}`, body, attempts: 0 };
  ledger.events.push(record);
  return sendEvent(ledger, target, http, record);
};

async function sendEvent(ledger: Ledger, target: Target, http: Agent, record: EventRecord): Promise<void> {
  record.attempts += 1;
  // Signed now, by the child's clock (5 minutes of tolerance): a sender re-signs every redelivery.
  const at = new Date(target.now());
  const headers = {
    'webhook-id': record.messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(SIGNUP_SECRET).sign(record.messageId, at, record.body),
    'content-type': 'application/json',
  };
  const reply = await send(http, target.port, 'POST', `/api/v1/events/${target.refs.signup}`, headers, record.body);
  if (!expect(ledger, `event ${record.messageId}`, reply, 202)) return;
  if (reply.json.status !== 'fired') return void ledger.wrong.push(`event ${record.messageId}: ${reply.text}`);
  // Only a redelivery whose cut-off original had committed may be a duplicate.
  if (reply.json.duplicate === true && record.attempts === 1) ledger.wrong.push(`event ${record.messageId}: a first delivery answered as a duplicate`);
  record.answer = { runId: reply.json.runId ?? null, duplicate: reply.json.duplicate === true };
}

function retry(ledger: Ledger, target: Target, http: Agent, item: Owed): Promise<void> {
  if ('trigger' in item) return sendFire(ledger, target, http, item);
  if ('approvalId' in item) return sendDecision(ledger, target, http, item);
  if ('messageId' in item) return sendEvent(ledger, target, http, item);
  return sendProvision(ledger, target, http, item);
}

const MIX: Array<[number, string, Op]> = [
  [22, 'open lookup', openSession('lookup')],
  [14, 'append', appendMessage],
  [24, 'fire', newFire],
  [3, 'replay fire', replayFire],
  [14, 'open upgrader', openSession('upgrader')],
  [16, 'decide', decide],
  [7, 'provision', newProvision],
  [6, 'event', newEvent],
];
const TOTAL = MIX.reduce((n, [w]) => n + w, 0);

function chooseOp(): [string, Op] {
  let roll = Math.random() * TOTAL;
  for (const [weight, name, op] of MIX) {
    roll -= weight;
    if (roll < 0) return [name, op];
  }
  return [MIX[0]![1], MIX[0]![2]];
}

const retryName = (item: Owed): string =>
  'trigger' in item ? 'retry fire' : 'approvalId' in item ? 'retry decide' : 'messageId' in item ? 'retry event' : 'retry provision';

/** The connection died with the child: the request may or may not have committed. */
function cutOff(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'EPIPE' || (error instanceof Error && error.message === 'socket hang up');
}

export interface DriveOptions {
  workers: number;
  /** Answered requests after which `kill` runs (null: never; the load then only clears the retries). */
  killAfter: number | null;
  kill?: () => Promise<void>;
}

/**
 * Workers send retries first, then the mix, until the kill (whose in-flight requests are cut off) or, without a
 * kill, until no retry is owed. Resolves once every worker has stopped.
 */
export async function drive(ledger: Ledger, target: Target, options: DriveOptions): Promise<{ answered: number }> {
  const http = new Agent({ keepAlive: true, maxSockets: options.workers });
  const owed = ledger.retries();
  let answered = 0;
  let killed = false;
  let killing: Promise<void> | null = null;
  const worker = async (): Promise<void> => {
    for (;;) {
      if (killed) return;
      const item = owed.shift();
      if (item === undefined && options.killAfter === null) return;
      const [name, op] = item === undefined ? chooseOp() : [retryName(item), (l: Ledger, tg: Target, h: Agent) => retry(l, tg, h, item)];
      try {
        await op(ledger, target, http);
      } catch (error) {
        if (!killed || !cutOff(error)) throw error;
        ledger.cut[name] = (ledger.cut[name] ?? 0) + 1;
        return;
      }
      answered += 1;
      if (options.killAfter !== null && answered >= options.killAfter && !killed) {
        killed = true;
        killing = options.kill!();
      }
    }
  };
  const early = options.killAfter === 0;
  if (early) {
    // A kill at boot: recovery (resumed turns, overdue timers) is what gets interrupted.
    killed = true;
    killing = options.kill!();
  }
  try {
    await Promise.all(Array.from({ length: options.workers }, worker));
    await killing;
  } finally {
    http.destroy();
  }
  return { answered };
}
