// GET /agents/sessions/:id/stream with a real EventSource client: envelope, order, snapshot, heartbeat, Last-Event-ID.
import t from 'tap';
import { EventSource } from 'eventsource';
import { bearer } from '../../helpers/http.js';
import { crmCredentials, crmResponder, startConversation, type Conversation } from './conversation-fixture.js';

interface Frame {
  id: string;
  data: { v: number; sessionId: string; seq: number; ts: string; event: { type: string; [k: string]: unknown } };
}

/** A real EventSource with the key (and an optional Last-Event-ID) sent through its fetch hook. */
function connect(c: Conversation, sessionId: string, user: string, lastEventId?: string) {
  const frames: Frame[] = [];
  const waiters: Array<{ test: (f: Frame[]) => boolean; resolve: () => void }> = [];
  const source = new EventSource(`${c.server.url}/api/v1/agents/sessions/${sessionId}/stream`, {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...bearer(c.key(user)), ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) } }),
  });
  source.onmessage = (message) => {
    frames.push({ id: message.lastEventId, data: JSON.parse(message.data) });
    for (const w of [...waiters]) if (w.test(frames)) waiters.splice(waiters.indexOf(w), 1) && w.resolve();
  };
  return {
    frames,
    source,
    until(test: (f: Frame[]) => boolean): Promise<void> {
      if (test(frames)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

const completedTurns = (frames: Frame[]) => frames.filter((f) => f.data.event.type === 'turn.completed').length;

t.test('snapshot first, then every stored event in seq order, each a versioned envelope with id = seq', async (t) => {
  const c = await startConversation(t);
  const held: Array<() => void> = [];
  c.upstream.respond((request, res) => held.push(() => crmResponder(request, res)));
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.upstream.nextRequest();
  const stream = connect(c, opened.json.sessionId, 'vic', '0');
  t.teardown(() => stream.source.close());
  await stream.until((f) => f.length >= 1);
  held.shift()!();
  await stream.until((f) => completedTurns(f) === 1);

  const [snapshot, ...events] = stream.frames;
  t.equal(snapshot!.data.event.type, 'snapshot', 'a viewer may stream: visibility is enough');
  t.match(snapshot!.data.event, { turn: { executionId: opened.json.executionId, status: 'running' }, pendingApproval: null, pendingApprovalId: null });
  t.same(events.map((f) => f.data.seq), events.map((_f, i) => i + 1), 'dense seqs from 1, no gap, no duplicate');
  for (const frame of events) {
    t.equal(frame.id, String(frame.data.seq));
    t.equal(frame.data.v, 1);
    t.equal(frame.data.sessionId, opened.json.sessionId);
    t.match(frame.data.ts, /^\d{4}-\d\d-\d\dT/);
  }
  const types = events.map((f) => f.data.event.type).filter((type, i, all) => type !== 'message.delta' || all[i - 1] !== 'message.delta');
  t.same(types, ['turn.started', 'tool_call.started', 'tool_call.finished', 'message.delta', 'turn.completed']);
  t.match(events.find((f) => f.data.event.type === 'tool_call.finished')!.data.event, { toolName: 'crm.get_contact', status: 'succeeded', identity: 'organization' });
  const text = events.filter((f) => f.data.event.type === 'message.delta').map((f) => f.data.event.text).join('');
  const answer = (await c.get(`/agents/sessions/${opened.json.sessionId}`, 'ada')).json.messages[1];
  t.equal(text, answer.text, 'the deltas add up to the stored answer');
  t.equal(events.find((f) => f.data.event.type === 'message.delta')!.data.event.messageId, answer.messageId);
});

t.test('a reconnect with Last-Event-ID replays exactly the missed events: zero gaps, zero duplicates', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.settle();
  const first = connect(c, opened.json.sessionId, 'ada', '0');
  await first.until((f) => completedTurns(f) === 1);
  first.source.close();
  const lastSeen = first.frames.at(-1)!.id;

  await c.post(`/agents/sessions/${opened.json.sessionId}/messages`, 'bob', { message: 'id: c-2' });
  await c.settle();
  const second = connect(c, opened.json.sessionId, 'ada', lastSeen);
  t.teardown(() => second.source.close());
  await second.until((f) => completedTurns(f) === 1);
  t.equal(second.frames[0]!.data.event.type, 'snapshot');
  t.equal(second.frames[0]!.data.seq, Number(lastSeen), 'the snapshot carries the stream position');
  const seen = [...first.frames.slice(1), ...second.frames.slice(1)].map((f) => f.data.seq);
  const max = Math.max(...seen);
  t.same(seen, Array.from({ length: max }, (_v, i) => i + 1));
  t.ok(second.frames.slice(1).every((f) => f.data.seq > Number(lastSeen)), 'nothing already seen is sent again');
});

t.test('a Last-Event-ID the session never reached gets stream.reset, then live events', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.settle();
  const stream = connect(c, opened.json.sessionId, 'ada', '9999');
  t.teardown(() => stream.source.close());
  await stream.until((f) => f.length >= 2);
  t.same(stream.frames.map((f) => f.data.event.type), ['snapshot', 'stream.reset']);
  t.match(stream.frames[1]!.data.event, { reason: 'last_event_id_ahead', requestedSeq: 9999 });
});

t.test('a suspended turn: turn.suspended names the approval and tool; the snapshot carries pendingApproval(Id)', async (t) => {
  const c = await startConversation(t);
  const opened = await c.open('upgrader', 'ada', { message: '{"id":"c-1","tier":"pro"}', callerCredentials: crmCredentials() });
  await c.settle();
  const stream = connect(c, opened.json.sessionId, 'bob', '0');
  t.teardown(() => stream.source.close());
  await stream.until((f) => f.some((x) => x.data.event.type === 'turn.suspended'));
  const snapshot = stream.frames[0]!.data.event as any;
  t.equal(snapshot.turn.status, 'suspended');
  t.match(snapshot.pendingApproval, { toolName: 'crm.update_contact', args: { id: 'c-1', tier: 'pro' } });
  t.equal(snapshot.pendingApprovalId, snapshot.pendingApproval.approvalId);
  const suspended = stream.frames.find((f) => f.data.event.type === 'turn.suspended')!.data.event;
  t.match(suspended, { approvalId: snapshot.pendingApprovalId, toolName: 'crm.update_contact' });
  t.notOk(JSON.stringify(stream.frames).includes('caller-canary'), 'no caller material on the stream');

  await c.post(`/agents/sessions/${opened.json.sessionId}/turn-approval`, 'ada', { decision: 'approved' });
  await stream.until((f) => completedTurns(f) === 1);
  const after = stream.frames.slice(stream.frames.findIndex((f) => f.data.event.type === 'turn.suspended') + 1).map((f) => f.data.event);
  t.match(after[0], { type: 'turn.started', resumed: true });
});

t.test('retry: 2000 first and heartbeat comments on the configured interval; access rules and Accept', async (t) => {
  const c = await startConversation(t, { config: { sseHeartbeatMs: 40 } });
  const opened = await c.open('lookup', 'ada', { message: 'id: c-1' });
  await c.settle();
  const url = `${c.server.url}/api/v1/agents/sessions/${opened.json.sessionId}/stream`;
  const controller = new AbortController();
  const response = await fetch(url, { headers: { ...bearer(c.key('ada')), accept: 'text/event-stream' }, signal: controller.signal });
  t.equal(response.status, 200);
  t.match(response.headers.get('content-type'), /^text\/event-stream/);
  const reader = response.body!.getReader();
  let text = '';
  while ((text.match(/: hb\n\n/g) ?? []).length < 2) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  t.ok(text.startsWith('retry: 2000\n\n'), 'retry first');
  t.match(text, /^retry: 2000\n\nid: \d+\ndata: \{"v":1,.*"type":"snapshot"/);

  t.equal((await fetch(url, { headers: bearer(c.key('eve')) })).status, 404, 'org Admin outside the domain');
  t.equal((await fetch(url, { headers: { ...bearer(c.key('ada')), accept: 'application/json' } })).status, 406);
});
