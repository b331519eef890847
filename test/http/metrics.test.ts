// /metrics on the real server: one fire, its turns and one webhook delivery each show up in the new series.
import t from 'tap';
import { bearer, call } from '../helpers/http.js';
import { scrape } from '../helpers/prometheus.js';
import { startWebhookWorld } from '../runtime/webhooks/webhook-fixture.js';

t.test('a fire, its turns (with a tool call) and its webhook delivery are counted; gauges read live state', async (t) => {
  const w = await startWebhookWorld(t);
  const { url } = w.server;
  const before = await scrape(url);
  t.equal(before.value('switchyard_trigger_fires_total', { source: 'api', result: 'accepted', code: 'none' }), undefined, 'nothing fired yet');

  const { json: registered } = await w.register('ada', { url: `${w.receiver.baseUrl}/hooks` });
  w.answerWith(500);
  const fired = await w.fire('fan', { id: 'c-1' });
  t.equal(fired.status, 202);
  await w.settle();

  const m = await scrape(url);
  // Fires and runs by source and outcome (the `fan` trigger starts some subscribers and skips others).
  t.equal(m.value('switchyard_trigger_fires_total', { source: 'api', result: 'accepted', code: 'none' }), 1);
  t.equal(m.value('switchyard_trigger_runs_total', { source: 'api', outcome: 'partial' }), 1);
  // Turns (the agent turn and the flow run) by outcome and duration.
  t.equal(m.value('switchyard_turns_started_total', { resumed: 'false' }), 2, 'lookup and enrich started');
  t.equal(m.value('switchyard_turns_total', { outcome: 'completed' }), 2);
  t.equal(m.value('switchyard_turn_duration_seconds_count', { outcome: 'completed' }), 2);
  t.ok(m.samples.has('switchyard_turn_duration_seconds_bucket'));
  // Tool calls by outcome and identity: the flow and the agent both read the contact as the organization.
  t.equal(m.value('switchyard_tool_calls_total', { outcome: 'succeeded', identity: 'organization', code: 'none' }), 2);
  t.equal(m.value('switchyard_tool_call_duration_seconds_count', { identity: 'organization' }), 2);
  // Model steps and tokens by provider (the builtin model: a tool-call step, then the answer).
  t.equal(m.value('switchyard_model_calls_total', { provider: 'builtin', outcome: 'ok' }), 2);
  t.ok(m.value('switchyard_model_tokens_total', { provider: 'builtin', direction: 'input' })! > 0);
  t.ok(m.value('switchyard_model_tokens_total', { provider: 'builtin', direction: 'output' })! > 0);
  t.equal(m.value('switchyard_model_call_duration_seconds_count', { provider: 'builtin' }), 2);
  // Webhooks: the first attempt got a 500, so the delivery is pending (backlog 1) with a retry timer.
  t.equal(m.value('switchyard_webhook_attempts_total', { result: 'http_error' }), 1);
  t.equal(m.value('switchyard_webhook_backlog'), 1);
  t.equal(m.value('switchyard_webhook_deliveries_total', { status: 'delivered' }), undefined);
  // Group commit: the histograms drain exactly the batches the counters report.
  const batches = m.value('switchyard_group_commit_batches_total')!;
  t.ok(batches > 0);
  // Both drivers' writers keep one sample per batch (SQLite's group commit, the PostgreSQL unit writer).
  t.equal(m.value('switchyard_group_commit_batch_size_count'), batches, 'one batch-size sample per batch');
  t.equal(m.value('switchyard_group_commit_duration_seconds_count'), batches, 'one duration sample per batch');
  t.ok(m.value('switchyard_group_commit_units_total')! >= batches);
  t.ok(m.value('switchyard_group_commit_seconds_total')! > 0);
  t.equal(m.value('switchyard_group_commit_spanned_turns_total'), 0, 'no unit held the write transaction across a loop turn');
  // Actors: stored unfinished ones are either resident or passivated.
  const active = m.sum('switchyard_actors_active');
  t.equal(m.value('switchyard_actors_passivated'), Math.max(0, active - m.value('switchyard_actors_resident')!));
  // The turn queue is empty once settled; every state is still reported.
  for (const status of ['queued', 'resume_queued', 'running']) t.equal(m.value('switchyard_executions_unsettled', { status }), 0, status);

  // The retry comes due: while its attempt is in flight the timer is due and not yet fired.
  const { repos } = w.server.service.store;
  const delivery = (await repos.webhooks.deliveriesPage(registered.webhook.id, null, 1))[0]!;
  t.equal((await repos.timers.pending('webhook-delivery', delivery.id))?.dueAt, delivery.nextAttemptAt);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  w.receiver.respond((_request, res) => void held.then(() => res.writeHead(200).end('ok')));
  const arrived = w.receiver.nextRequest();
  w.clock.set(delivery.nextAttemptAt!);
  await arrived;
  t.equal((await scrape(url)).value('switchyard_timers_due', { kind: 'webhook-delivery' }), 1, 'due and not yet fired');
  release();
  await w.settle();
  const after = await scrape(url);
  t.equal(after.value('switchyard_timers_due', { kind: 'webhook-delivery' }), undefined, 'fired');
  t.equal(after.value('switchyard_webhook_attempts_total', { result: 'success' }), 1);
  t.equal(after.value('switchyard_webhook_deliveries_total', { status: 'delivered' }), 1);
  t.equal(after.value('switchyard_webhook_backlog'), 0);
  t.equal(after.value('switchyard_webhook_attempt_duration_seconds_count'), 2);
  t.equal(after.value('switchyard_http_requests_total', { method: 'POST', route: '/api/v1/triggers/fire', status: '202' }), 1);

  // A refused fire and a replayed one are fires too, but write no run.
  const fireAs = (key: string, headers: Record<string, string> = {}) =>
    call(`${url}/api/v1/triggers/fire`, { method: 'POST', headers: { ...bearer(w.refs[key]!), ...headers }, json: { triggerId: w.refs.empty, input: {} } });
  t.equal((await fireAs('vic-key')).status, 403);
  t.equal((await fireAs('bob-key', { 'idempotency-key': 'metrics-1' })).status, 202);
  t.equal((await fireAs('bob-key', { 'idempotency-key': 'metrics-1' })).headers.get('idempotency-replayed'), 'true');
  const fires = await scrape(url);
  t.equal(fires.value('switchyard_trigger_fires_total', { source: 'api', result: 'refused', code: 'FORBIDDEN' }), 1);
  t.equal(fires.value('switchyard_trigger_fires_total', { source: 'api', result: 'replayed', code: 'none' }), 1);
  t.equal(fires.value('switchyard_trigger_fires_total', { source: 'api', result: 'accepted', code: 'none' }), 2);
  t.equal(fires.value('switchyard_trigger_runs_total', { source: 'api', outcome: 'skipped' }), 1, 'the empty trigger ran once');
  t.ok(after.text.includes('switchyard_http_request_duration_seconds_bucket{le="60",method="POST",route="/api/v1/triggers/fire"} 1'), 'latency buckets reach 60 s');
});

t.test('open SSE streams and MCP sessions are gauges of what is open now', async (t) => {
  const w = await startWebhookWorld(t);
  const { url } = w.server;
  const fired = await w.fire('quiet', { id: 'c-1' });
  await w.settle();
  const sessionId = fired.json.sessions[0].sessionId as string;
  const route = '/api/v1/agents/sessions/:sessionId/stream';

  const controller = new AbortController();
  const stream = await fetch(`${url}/api/v1/agents/sessions/${sessionId}/stream`, { headers: { ...bearer(w.refs['ada-key']!), accept: 'text/event-stream' }, signal: controller.signal });
  t.equal(stream.status, 200);
  await stream.body!.getReader().read();
  t.equal((await scrape(url)).value('switchyard_sse_streams_open', { route }), 1);

  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'metrics', version: '0' } } };
  const mcp = await call(`${url}/api/v1/mcp`, { method: 'POST', headers: { ...bearer(w.refs['ada-key']!), accept: 'application/json, text/event-stream' }, json: init });
  t.equal(mcp.status, 200);
  t.equal((await scrape(url)).value('switchyard_mcp_sessions'), 1);
  const ended = await call(`${url}/api/v1/mcp`, { method: 'DELETE', headers: { ...bearer(w.refs['ada-key']!), 'mcp-session-id': mcp.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' } });
  t.ok(ended.status < 300, 'session ended');
  t.equal((await scrape(url)).value('switchyard_mcp_sessions'), 0);

  controller.abort();
  // The server learns of the closed socket asynchronously: poll the gauge (bounded), no fixed sleep.
  let open = 1;
  for (let i = 0; i < 100 && open !== 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    open = (await scrape(url)).value('switchyard_sse_streams_open', { route }) ?? -1;
  }
  t.equal(open, 0, 'closed streams leave the gauge');
});
