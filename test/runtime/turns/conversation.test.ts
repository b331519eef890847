// Pure parts of the turn engine: the model's view rebuilt from message rows, and budget breaches.
import t from 'tap';
import type { ConversationEntry } from '../../../storage/records/sessions.js';
import { rebuildConversation } from '../../../runtime/turns/conversation.js';
import { budgetBreach, clockDeadline } from '../../../runtime/turns/turn-budget.js';
import { ManualClock } from '../../../runtime/clock.js';

let position = 0;
function row(executionId: string, executionPosition: number, role: ConversationEntry['role'], content: string, payload: unknown = null): ConversationEntry {
  position += 1;
  return {
    id: `m${position}`,
    sessionId: 's',
    executionId,
    role,
    authorUserId: null,
    content,
    payload: payload === null ? null : JSON.stringify(payload),
    createdAt: 0,
    position,
    executionPosition,
  };
}

const call = (id: string, name = 'crm.get_contact') => ({ toolCallId: id, toolName: name, args: { id: 'c-1' } });
const result = (id: string, name = 'crm.get_contact') => ({ toolCallId: id, toolName: name, result: { ok: true, output: { tier: 'pro' } } });

t.test('earlier turns contribute messages and answers only; the current turn its steps, results and pending calls', async (t) => {
  const rows = [
    row('e1', 1, 'user', 'first'),
    row('e1', 1, 'assistant', '', { toolCalls: [call('a')] }),
    row('e1', 1, 'tool', 'crm.get_contact: ok', result('a')),
    // A message queued while e1 ran sits between e1's rows: it belongs to e2.
    row('e2', 2, 'user', 'second'),
    row('e1', 1, 'assistant', 'first answer', { toolCalls: [] }),
    row('e2', 2, 'assistant', 'checking', { toolCalls: [call('b'), call('c', 'crm.update_contact')] }),
    row('e2', 2, 'tool', 'crm.get_contact: ok', result('b')),
    row('e3', 3, 'user', 'third (queued)'),
  ];
  const view = rebuildConversation(rows, { id: 'e2', position: 2 });
  t.same(view.messages, [
    { role: 'user', text: 'first' },
    { role: 'assistant', text: 'first answer', toolCalls: [] },
    { role: 'user', text: 'second' },
    { role: 'assistant', text: 'checking', toolCalls: [call('b'), call('c', 'crm.update_contact')] },
    { role: 'tool', toolCallId: 'b', toolName: 'crm.get_contact', result: { ok: true, output: { tier: 'pro' } } },
  ]);
  t.same(view.pending.map((p) => p.toolCallId), ['c'], 'only the unanswered call of the latest step');
  t.equal(view.userText, 'second');
  t.same(rebuildConversation(rows, { id: 'e1', position: 1 }).pending, [], 'a finished step leaves nothing pending');
});

t.test('budget breaches: steps and tokens before a step, tokens after one, wall time always', async (t) => {
  const limits = { maxSteps: 3, maxTokens: 100, maxWallMs: 1_000 };
  t.equal(budgetBreach(limits, { steps: 2, tokens: 99, ms: 999 }, 'before-step'), null);
  t.same(budgetBreach(limits, { steps: 3, tokens: 0, ms: 0 }, 'before-step'), { budget: 'steps', limit: 3, used: 3 });
  t.same(budgetBreach(limits, { steps: 0, tokens: 100, ms: 0 }, 'before-step'), { budget: 'tokens', limit: 100, used: 100 });
  t.equal(budgetBreach(limits, { steps: 3, tokens: 100, ms: 0 }, 'after-step'), null, 'a step that lands exactly on the limit stands');
  t.same(budgetBreach(limits, { steps: 0, tokens: 101, ms: 0 }, 'after-step'), { budget: 'tokens', limit: 100, used: 101 });
  t.same(budgetBreach(limits, { steps: 0, tokens: 0, ms: 1_000 }, 'after-step'), { budget: 'wall_time', limit: 1_000, used: 1_000 });
});

t.test('the wall-time deadline fires when the injected clock crosses it, and not before', async (t) => {
  const clock = new ManualClock(1_000);
  const deadline = clockDeadline(clock, 2_000);
  clock.advance(999);
  t.notOk(deadline.signal.aborted);
  clock.advance(1);
  t.ok(deadline.signal.aborted);
  const disposed = clockDeadline(clock, 5_000);
  disposed.dispose();
  clock.advance(10_000);
  t.notOk(disposed.signal.aborted, 'a disposed deadline never fires');
  t.ok(clockDeadline(clock, clock.now()).signal.aborted, 'a deadline already reached is aborted at once');
});
