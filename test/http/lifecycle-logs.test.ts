// Lifecycle log lines at info for fires, turns and webhook deliveries: ids to follow the work, never a secret.
import t from 'tap';
import { bearer, call } from '../helpers/http.js';
import { CANARY, crmCredentials } from './sessions/conversation-fixture.js';
import { startWebhookWorld } from '../runtime/webhooks/webhook-fixture.js';

const INFO = 30;
const WARN = 40;

t.test('a fire, its turns (one suspended on approval) and its webhook delivery each log a line with ids and no secret', async (t) => {
  const w = await startWebhookWorld(t);
  const { json: registered } = await w.register('ada', { url: `${w.receiver.baseUrl}/hooks` });
  w.answerWith(503, 200);
  const fired = await call(`${w.server.url}/api/v1/triggers/fire`, {
    method: 'POST',
    headers: bearer(w.refs['bob-key']!),
    json: { triggerId: w.refs.fan, input: { id: 'c-1', tier: 'pro' }, callerCredentials: crmCredentials() },
  });
  t.equal(fired.status, 202);
  await w.settle();
  const lines = w.server.logs.map((line) => JSON.parse(line));
  const byMsg = (msg: string) => lines.filter((l) => l.msg === msg);

  const [fire] = byMsg('trigger fired');
  t.match(fire, { level: INFO, source: 'api', triggerId: w.refs.fan, runId: fired.json.runId, outcome: 'partial', sessions: fired.json.sessions.length });
  // The access line (written without a redaction pass: its fields are fixed) names the route pattern, never the key.
  const access = byMsg('request').find((l) => l.route === '/api/v1/triggers/fire');
  t.match(access, { level: INFO, method: 'POST', status: 202, ms: Number, reqId: String });

  const sessionIds = new Set(fired.json.sessions.map((s: any) => s.sessionId));
  const started = byMsg('turn started');
  t.ok(started.length >= 3, 'lookup, upgrader and enrich started');
  for (const line of started) {
    t.equal(line.level, INFO);
    t.ok(sessionIds.has(line.sessionId), 'names its session');
    t.match(line.executionId, /^[0-9a-f-]{36}$/);
  }
  const [suspended] = byMsg('turn suspended');
  t.match(suspended, { level: INFO, tool: 'crm.update_contact', approvalId: /^[0-9a-f-]{36}$/ });
  const completed = byMsg('turn completed');
  t.ok(completed.length >= 2);
  for (const line of completed) t.match(line, { level: INFO, outcome: 'completed', errorCode: null, ms: Number });

  // The run settles only once the suspended turn does: decide it, then the delivery goes out (503 first, then 200).
  const decided = await call(`${w.server.url}/api/v1/agents/sessions/${suspended.sessionId}/turn-approval`, { method: 'POST', headers: bearer(w.refs['bob-key']!), json: { decision: 'rejected' } });
  t.equal(decided.status, 200, decided.text);
  await w.settle();
  w.clock.advance(60_000);
  await w.settle();
  const after = w.server.logs.map((line) => JSON.parse(line));
  const retry = after.find((l) => l.msg === 'webhook delivery attempt failed');
  t.match(retry, { level: WARN, attempt: 1, status: 503, deliveryId: /^[0-9a-f-]{36}$/, endpointId: registered.webhook.id });
  const delivered = after.find((l) => l.msg === 'webhook delivered');
  t.match(delivered, { level: INFO, attempt: 2, status: 200, deliveryId: retry.deliveryId, endpointId: registered.webhook.id });
  t.match(after.find((l) => l.msg === 'turn completed' && l.outcome === 'rejected'), { level: INFO, executionId: suspended.executionId }, 'the rejected turn settles');

  const all = w.server.logs.join('\n');
  for (const secret of [CANARY, 'org-token-123', w.refs['bob-key']!, w.refs['ada-key']!, registered.secret, registered.secret.slice('whsec_'.length)]) {
    t.notOk(all.includes(secret), 'no secret in any log line');
  }
});
