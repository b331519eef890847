// OpenTelemetry traces with the SDK's in-memory exporter: request -> fire -> turn -> model steps and tool calls, traceparent upstream.
import t from 'tap';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { bearer, call } from '../helpers/http.js';
import { startWebhookWorld } from '../runtime/webhooks/webhook-fixture.js';

// What an embedding app (or `node --import` of an SDK setup file) does: a provider, a context manager, a propagator.
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

t.test('a fire request is one trace: request -> fire -> turn / flow run -> model steps and tool calls; upstreams get traceparent', async (t) => {
  const w = await startWebhookWorld(t);
  const { json: registered } = await w.register('ada', { url: `${w.receiver.baseUrl}/hooks` });
  exporter.reset();
  const fired = await call(`${w.server.url}/api/v1/triggers/fire`, {
    method: 'POST',
    headers: { ...bearer(w.refs['bob-key']!), traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
    json: { triggerId: w.refs.fan, input: { id: 'c-1' } },
  });
  t.equal(fired.status, 202);
  await w.settle();
  const spans = exporter.getFinishedSpans();
  const named = (name: string) => spans.filter((s) => s.name === name);

  const [request] = named('POST /api/v1/triggers/fire');
  t.ok(request, 'the request span is named by route pattern');
  t.equal(request!.spanContext().traceId, CLIENT_TRACE, "continues the caller's trace");
  t.equal(parentOf(request!), CLIENT_SPAN);
  t.match(request!.attributes, { 'http.route': '/api/v1/triggers/fire', 'http.response.status_code': 202, 'http.request.method': 'POST' });

  const [fire] = named('trigger fire');
  t.equal(parentOf(fire!), idOf(request!), 'fire inside the request');
  t.match(fire!.attributes, { 'switchyard.fire.source': 'api', 'switchyard.run.id': fired.json.runId, 'switchyard.run.outcome': 'partial' });

  const turns = named('turn');
  const flows = named('flow run');
  t.equal(turns.length, 1, 'the lookup agent turn');
  t.equal(flows.length, 1, 'the enrich flow run');
  for (const run of [...turns, ...flows]) {
    t.equal(parentOf(run), idOf(fire!), `${run.name} is dispatched by the fire`);
    t.equal(run.spanContext().traceId, CLIENT_TRACE);
    t.equal(run.attributes['switchyard.execution.status'], 'completed');
  }
  const steps = named('model.step');
  t.equal(steps.length, 2, 'a tool-call step and the answer');
  for (const step of steps) {
    t.equal(parentOf(step), idOf(turns[0]!));
    t.match(step.attributes, { 'gen_ai.system': 'builtin', 'gen_ai.request.model': 'builtin:procedure' });
    t.ok((step.attributes['gen_ai.usage.input_tokens'] as number) > 0);
  }
  const tools = named('tool crm.get_contact');
  t.same(tools.map(parentOf).sort(), [idOf(turns[0]!), idOf(flows[0]!)].sort(), 'one tool call in the turn, one in the flow run');
  for (const tool of tools) t.match(tool.attributes, { 'switchyard.tool.identity': 'organization', 'switchyard.integration.id': 'crm', 'http.response.status_code': 200, 'server.address': '127.0.0.1' });

  // The upstream saw each tool span as its parent, in the caller's trace; it got the credential, spans did not.
  const upstreamParents = w.upstream.received.map((r) => r.headers.traceparent as string);
  t.same(upstreamParents.sort(), tools.map((s) => `00-${CLIENT_TRACE}-${idOf(s)}-01`).sort());
  t.ok(w.upstream.received.every((r) => r.headers.authorization === 'Bearer org-token-123'), 'the upstream got the connection token');

  // The webhook announcing the run: an attempt span of its own, whose context the receiver got.
  const [attempt] = named('webhook attempt');
  t.ok(attempt, 'a webhook attempt span');
  t.equal(parentOf(attempt!), undefined, 'a timer-driven attempt starts its own trace');
  t.equal(w.receiver.received[0]!.headers.traceparent, `00-${attempt!.spanContext().traceId}-${idOf(attempt!)}-01`);
  t.match(attempt!.attributes, { 'http.response.status_code': 200, 'server.address': '127.0.0.1' });

  const everything = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events })));
  for (const secret of ['org-token-123', w.refs['bob-key']!, registered.secret, registered.secret.slice('whsec_'.length)]) {
    t.notOk(everything.includes(secret), 'no credential in any span');
  }
});

t.test('without a traceparent a request starts a new trace; a refused fire marks its spans failed', async (t) => {
  const w = await startWebhookWorld(t);
  exporter.reset();
  const refused = await call(`${w.server.url}/api/v1/triggers/fire`, { method: 'POST', headers: bearer(w.refs['vic-key']!), json: { triggerId: w.refs.fan, input: {} } });
  t.equal(refused.status, 403);
  const spans = exporter.getFinishedSpans();
  const request = spans.find((s) => s.name === 'POST /api/v1/triggers/fire')!;
  t.equal(parentOf(request), undefined, 'a root span');
  const fire = spans.find((s) => s.name === 'trigger fire')!;
  t.equal(fire.status.message, 'FORBIDDEN');
  t.equal(request.attributes['http.response.status_code'], 403);
});
