// The generated client (http/client) against the real server: fire, read the run and session, follow the stream.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import t from 'tap';
import { createSwitchyardClient, followSession, SwitchyardHttpError, verifyWebhook, WebhookVerificationError, type SessionEventEnvelope } from '../../http/client/index.js';
import { mintSigningSecret, signedHeaders } from '../../runtime/webhooks/standard-webhooks.js';
import { call } from '../helpers/http.js';
import { startFireServer } from '../http/triggers/fire-server.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Checks bodies against the schemas of the served document, by JSON pointer into it. */
async function documentValidator(url: string) {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ ...(await call(`${url}/api/v1/openapi.json`)).json, $id: 'openapi' });
  return (pointer: string, value: unknown): string[] => {
    const validate = ajv.getSchema(`openapi#${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

const responseSchema = (path: string, method: string, status: number) =>
  `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${status}/content/application~1json/schema`;

t.test('fire, read the run and the session, and follow its stream with the generated client', async (t) => {
  const f = await startFireServer(t);
  const check = await documentValidator(f.server.url);
  const client = createSwitchyardClient({ baseUrl: `${f.server.url}/`, token: f.key('bob') });

  const fired = await client.POST('/api/v1/triggers/fire', { body: { triggerId: f.refs.quiet, input: { prompt: 'hello' } }, params: { header: { 'Idempotency-Key': 'client-e2e-1' } } });
  t.equal(fired.response.status, 202);
  const answer = fired.data!;
  t.same(check(responseSchema('/api/v1/triggers/fire', 'post', 202), answer), [], 'the fire answer matches its documented schema');
  const replay = await client.POST('/api/v1/triggers/fire', { body: { triggerId: f.refs.quiet, input: { prompt: 'hello' } }, params: { header: { 'Idempotency-Key': 'client-e2e-1' } } });
  t.equal(replay.response.headers.get('idempotency-replayed'), 'true', 'the documented replay header');
  t.equal(replay.data?.runId, answer.runId);
  await f.settle();

  const run = await client.GET('/api/v1/triggers/{triggerId}/runs/{runId}', { params: { path: { triggerId: f.refs.quiet, runId: answer.runId } } });
  t.equal(run.data?.outcome, 'succeeded');
  t.same(check(responseSchema('/api/v1/triggers/{triggerId}/runs/{runId}', 'get', 200), run.data), []);

  const sessionId = answer.sessions[0]!.sessionId;
  const events: SessionEventEnvelope[] = [];
  for await (const envelope of followSession({ baseUrl: f.server.url, sessionId, token: f.key('bob'), lastEventId: 0 })) {
    events.push(envelope);
    t.same(check('/components/schemas/SessionEventEnvelope', envelope), [], `${envelope.event.type} matches SessionEventEnvelope`);
    if (envelope.event.type === 'turn.completed') break;
  }
  t.equal(events[0]?.event.type, 'snapshot', 'the snapshot comes first');
  const stored = events.slice(1).map((e) => e.seq);
  t.same(stored, stored.map((_, i) => i + 1), 'then every stored event from seq 1, in order');
  t.match(events.at(-1)?.event, { type: 'turn.completed', outcome: 'completed' });

  const started = events.find((e) => e.event.type === 'turn.started')!;
  const resumed: SessionEventEnvelope[] = [];
  for await (const envelope of followSession({ baseUrl: f.server.url, sessionId, token: f.key('bob'), lastEventId: started.seq })) {
    resumed.push(envelope);
    if (envelope.event.type === 'turn.completed') break;
  }
  t.equal(resumed[1]?.seq, started.seq + 1, 'Last-Event-ID resumes right after the given seq');

  const view = await client.GET('/api/v1/agents/sessions/{sessionId}', { params: { path: { sessionId } } });
  t.same(check(responseSchema('/api/v1/agents/sessions/{sessionId}', 'get', 200), view.data), [], 'the session view matches SessionView');
  t.ok(view.data?.messages.some((m) => m.role === 'assistant'), 'the agent answered');
  t.ok(check(responseSchema('/api/v1/agents/sessions/{sessionId}', 'get', 200), { ...view.data, canManage: 'yes' }).length > 0, 'and a wrong body would not');
  t.ok(check('/components/schemas/SessionEventEnvelope', { ...events[0], event: { type: 'snapshot' } }).length > 0, 'nor a wrong event');

  const stranger = createSwitchyardClient({ baseUrl: f.server.url, token: 'sv_not-a-key' });
  const refused = await stranger.GET('/api/v1/agents/sessions/{sessionId}', { params: { path: { sessionId } } });
  t.equal(refused.response.status, 404);
  t.equal(refused.error?.error.code, 'NOT_FOUND', 'errors arrive as the typed envelope');
  await t.rejects(followSession({ baseUrl: f.server.url, sessionId, token: 'sv_not-a-key' }).next(), SwitchyardHttpError, 'a refused stream throws');
});

t.test('followSession reconnects after a dropped stream with Last-Event-ID and the announced retry', async (t) => {
  const seen: IncomingHttpHeaders[] = [];
  const frame = (seq: number, event: object) => `id: ${seq}\ndata: ${JSON.stringify({ v: 1, sessionId: 's', seq, ts: '2026-01-01T00:00:00.000Z', event })}\n\n`;
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    if (seen.length === 1) response.end(`retry: 5\n\n${frame(1, { type: 'turn.started', executionId: 'e', resumed: false })}: hb\n\n`);
    else response.end(frame(2, { type: 'turn.completed', executionId: 'e', outcome: 'completed', errorCode: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const types: string[] = [];
  for await (const envelope of followSession({ baseUrl, sessionId: 's', token: 'sv_k' })) {
    types.push(envelope.event.type);
    if (envelope.event.type === 'turn.completed') break;
  }
  t.same(types, ['turn.started', 'turn.completed']);
  t.equal(seen[0]?.['last-event-id'], undefined);
  t.equal(seen[1]?.['last-event-id'], '1', 'the reconnect names the last id received');
  t.equal(seen[1]?.authorization, 'Bearer sv_k');
});

t.test('verifyWebhook accepts a delivery signed as the service signs it and refuses a tampered one', async (t) => {
  const secret = mintSigningSecret();
  const body = JSON.stringify({ type: 'trigger.run.completed', timestamp: new Date().toISOString(), data: { runId: 'r', result: 'succeeded', subscribers: [] } });
  const headers = { ...signedHeaders(secret, 'msg_1', Date.now(), body) };
  t.equal(verifyWebhook(secret, body, new Headers(headers)).data.result, 'succeeded', 'fetch Headers');
  t.equal(verifyWebhook(secret, Buffer.from(body), headers).type, 'trigger.run.completed', 'Node headers and a Buffer body');
  t.throws(() => verifyWebhook(secret, body.replace('succeeded', 'failed'), headers), WebhookVerificationError);
  t.throws(() => verifyWebhook(mintSigningSecret(), body, headers), WebhookVerificationError, 'another secret');
  const stale = { ...signedHeaders(secret, 'msg_1', Date.now() - 10 * 60_000, body) };
  t.throws(() => verifyWebhook(secret, body, stale), WebhookVerificationError, 'a timestamp outside 5 minutes');
});
