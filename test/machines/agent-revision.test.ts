// Behaviour of the agent revision machine: publish, verifier refusal, draft edits and a persisted snapshot (spec Agent rows, Versioning rule 2).
import t from 'tap';
import { createActor, type SnapshotFrom } from 'xstate';
import { agentRevisionMachine, type AgentRevisionEmitted } from '../../machines/agent-revision.machine.js';

type Snapshot = SnapshotFrom<typeof agentRevisionMachine>;

function start(snapshot?: Snapshot) {
  const actor = createActor(agentRevisionMachine, snapshot ? { snapshot, input: { agentId: 'agent-1' } } : { input: { agentId: 'agent-1' } });
  const emitted: AgentRevisionEmitted[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  return { actor, emitted };
}

const finding = { code: 'UNKNOWN_TOOL', message: 'procedure references #crm.nope' };

t.test('a clean publish creates revision 1 at the event time and moves the pointer', async (t) => {
  const { actor, emitted } = start();
  actor.send({ type: 'PUBLISH', now: 1_000, findings: [] });
  const s = actor.getSnapshot();
  t.equal(s.value, 'published');
  t.match(s.context, { publishedRevision: 1, revisionCount: 1, publishedAt: 1_000 });
  t.same(emitted, [{ type: 'revision.published', agentId: 'agent-1', revision: 1, at: 1_000 }]);
});

t.test('a publish with findings stays draft, creates nothing and hands the findings to the 422', async (t) => {
  const { actor, emitted } = start();
  actor.send({ type: 'PUBLISH', now: 1_000, findings: [finding] });
  const s = actor.getSnapshot();
  t.equal(s.value, 'draft');
  t.match(s.context, { publishedRevision: null, revisionCount: 0, publishedAt: null });
  t.same(emitted, [{ type: 'publish.refused', agentId: 'agent-1', findings: [finding] }]);
});

t.test('PATCH setup on a never-published draft updates the draft only', async (t) => {
  const { actor, emitted } = start();
  actor.send({ type: 'PATCH_SETUP', now: 500 });
  t.equal(actor.getSnapshot().value, 'draft');
  t.match(actor.getSnapshot().context, { publishedRevision: null, revisionCount: 0, draftUpdatedAt: 500 });
  t.same(emitted, [{ type: 'draft.updated', agentId: 'agent-1', at: 500 }]);
});

t.test('PATCH setup on a published agent returns it to draft without moving the published pointer', async (t) => {
  const { actor } = start();
  actor.send({ type: 'PUBLISH', now: 1_000, findings: [] });
  actor.send({ type: 'PATCH_SETUP', now: 2_000 });
  t.equal(actor.getSnapshot().value, 'draft');
  t.match(actor.getSnapshot().context, { publishedRevision: 1, revisionCount: 1, publishedAt: 1_000, draftUpdatedAt: 2_000 });
  actor.send({ type: 'PUBLISH', now: 3_000, findings: [finding] });
  t.equal(actor.getSnapshot().context.publishedRevision, 1, 'a refused publish of the edited draft keeps revision 1 serving');
  actor.send({ type: 'PUBLISH', now: 4_000, findings: [] });
  t.match(actor.getSnapshot().context, { publishedRevision: 2, revisionCount: 2, publishedAt: 4_000 });
});

t.test('publishing again from published creates the next revision; a refused one changes nothing', async (t) => {
  const { actor, emitted } = start();
  actor.send({ type: 'PUBLISH', now: 1_000, findings: [] });
  actor.send({ type: 'PUBLISH', now: 2_000, findings: [finding] });
  t.equal(actor.getSnapshot().value, 'published');
  t.equal(actor.getSnapshot().context.publishedRevision, 1);
  actor.send({ type: 'PUBLISH', now: 3_000, findings: [] });
  t.equal(actor.getSnapshot().context.publishedRevision, 2);
  t.same(emitted.map((e) => e.type), ['revision.published', 'publish.refused', 'revision.published']);
});

t.test('a persisted snapshot survives JSON and behaves the same afterwards', async (t) => {
  const { actor } = start();
  actor.send({ type: 'PUBLISH', now: 1_000, findings: [] });
  actor.send({ type: 'PATCH_SETUP', now: 2_000 });
  const stored = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as Snapshot;
  actor.stop();
  const restored = start(stored);
  t.equal(restored.actor.getSnapshot().value, 'draft');
  t.match(restored.actor.getSnapshot().context, { agentId: 'agent-1', publishedRevision: 1, revisionCount: 1, draftUpdatedAt: 2_000 });
  restored.actor.send({ type: 'PUBLISH', now: 5_000, findings: [] });
  t.match(restored.actor.getSnapshot().context, { publishedRevision: 2, publishedAt: 5_000 });
  t.same(restored.emitted, [{ type: 'revision.published', agentId: 'agent-1', revision: 2, at: 5_000 }]);
});
