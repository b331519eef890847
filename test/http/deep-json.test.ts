// Deeply nested bodies in free-form JSON fields are a 400 VALIDATION naming the limit, never a 500 (issue 13 item 8).
import t, { type Test } from 'tap';
import { Webhook } from 'standardwebhooks';
import { configFromEnv, DEFAULT_CONFIG } from '../../runtime/config.js';
import { bearer, call, type Answer } from '../helpers/http.js';
import { SIGNUP_SECRET, startTriggerServer, type TriggerServer } from './triggers-admin/trigger-fixture.js';

/** A JSON text: `depth` nested arrays around a string (depth 1 is `["x"]`). */
const nested = (depth: number): string => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

const fire = (f: TriggerServer, body: string): Promise<Answer> =>
  call(`${f.server.url}/api/v1/triggers/fire`, { method: 'POST', headers: { ...bearer(f.refs['bob-key']!), 'content-type': 'application/json' }, body });

const createRaw = async (f: TriggerServer, body: string): Promise<Answer> =>
  call(`${f.server.url}/api/v1/triggers`, { method: 'POST', headers: { cookie: await f.cookie('ada'), 'content-type': 'application/json' }, body });

let counter = 0;
function deliver(f: TriggerServer, body: string): Promise<Answer> {
  const id = `msg_deep_${++counter}`;
  const at = new Date(f.clock.now());
  const signature = new Webhook(SIGNUP_SECRET).sign(id, at, body);
  return call(`${f.server.url}/api/v1/events/${f.refs.signup}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
    body,
  });
}

function assertTooDeep(t: Test, answer: Answer, limit: number, what: string): void {
  t.equal(answer.status, 400, `${what}: 400`);
  t.equal(answer.json?.error?.code, 'VALIDATION', `${what}: VALIDATION`);
  t.match(answer.json.error.message, new RegExp(`limit of ${limit} levels`), `${what}: the message names the limit`);
  t.equal(answer.json.error.details.maxDepth, limit, `${what}: details.maxDepth`);
}

t.test('fire `input`, schedule `input`, `eventFilter.value` and an inbound event `data` nested 5,000 deep: 400, nothing written', async (t) => {
  const f = await startTriggerServer(t);
  const { repos } = f.server.service.store;
  const quiet = f.refs.quiet!;
  for (const depth of [5_000, 100_000]) {
    assertTooDeep(t, await fire(f, `{"triggerId":"${quiet}","input":{"x":${nested(depth)}}}`), 64, `fire input at ${depth}`);
  }
  t.equal((await repos.triggerRuns.countOfTrigger(quiet)), 0, 'nothing fired');

  const schedule = `{"type":"schedule","domainId":"${f.refs.sales}","name":"Deep","cron":"0 * * * *","input":{"x":${nested(5_000)}}}`;
  assertTooDeep(t, await createRaw(f, schedule), 64, 'schedule input');
  const filter = `{"type":"event","domainId":"${f.refs.sales}","name":"Deep","sourceIntegrationId":"crm","connectionId":"${f.refs['crm-conn']}",` +
    `"eventType":"contact.created","eventFilter":{"field":"contact.tier","operator":"=","value":${nested(5_000)}}}`;
  assertTooDeep(t, await createRaw(f, filter), 64, 'eventFilter.value');
  t.notOk(
    (await call(`${f.server.url}/api/v1/triggers`, { headers: { cookie: await f.cookie('ada') } })).text.includes('"Deep"'),
    'no trigger was created',
  );

  assertTooDeep(t, await deliver(f, `{"type":"contact.created","data":{"contact":${nested(5_000)}}}`), 64, 'event data');
  t.equal((await repos.eventDeliveries.recent(f.refs.signup!, 5)).length, 0, 'the delivery was not recorded: the sender may retry a corrected one');
});

t.test('at the limit a body is accepted; one level more is refused (the body object is level 1)', async (t) => {
  const f = await startTriggerServer(t);
  // {"triggerId", "input": {"x": [[...]]}}: the body and `input` are two levels, the array nest the rest.
  const at = await fire(f, `{"triggerId":"${f.refs.quiet}","input":{"x":${nested(62)}}}`);
  t.equal(at.status, 202, 'exactly 64 levels');
  assertTooDeep(t, await fire(f, `{"triggerId":"${f.refs.quiet}","input":{"x":${nested(63)}}}`), 64, '65 levels');
  // Brackets inside strings are text, not nesting.
  const text = await fire(f, JSON.stringify({ triggerId: f.refs.quiet, input: { prompt: `${'[{'.repeat(5_000)} \\" ${'}]'.repeat(5_000)}` } }));
  t.equal(text.status, 202, 'brackets inside a string do not count');
  await f.settle();
});

t.test('SWITCHYARD_JSON_MAX_DEPTH (config.jsonMaxDepth) moves the limit', async (t) => {
  t.equal(DEFAULT_CONFIG.jsonMaxDepth, 64, 'documented default');
  t.equal(configFromEnv({ SWITCHYARD_JSON_MAX_DEPTH: '100' }).jsonMaxDepth, 100);
  t.throws(() => configFromEnv({ SWITCHYARD_JSON_MAX_DEPTH: 'deep' }), /SWITCHYARD_JSON_MAX_DEPTH/);
  const f = await startTriggerServer(t, { config: { jsonMaxDepth: 8 } });
  t.equal((await fire(f, `{"triggerId":"${f.refs.quiet}","input":{"x":${nested(6)}}}`)).status, 202, '8 levels pass');
  assertTooDeep(t, await fire(f, `{"triggerId":"${f.refs.quiet}","input":{"x":${nested(7)}}}`), 8, '9 levels');
  assertTooDeep(t, await deliver(f, `{"type":"contact.created","data":{"contact":${nested(7)}}}`), 8, 'event data past 8');
  await f.settle();
});

t.test('MCP answers a too-deep body with a JSON-RPC error at 400, before any session work', async (t) => {
  const f = await startTriggerServer(t);
  const answer = await call(`${f.server.url}/api/v1/mcp`, {
    method: 'POST',
    headers: { ...bearer(f.refs['bob-key']!), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":${nested(5_000)}}}`,
  });
  t.equal(answer.status, 400);
  t.equal(answer.json.jsonrpc, '2.0');
  t.match(answer.json.error.message, /limit of 64 levels/);
});
