// Owns driving the agent-revision machine: its state is derived from the stored rows inside the unit of work that writes its effects.
/*
 * Why not a persisted actor: revisions are also written by manifest apply (runtime/manifest/apply-automations.ts),
 * so a separately stored snapshot could disagree with agent_revisions. The rows are the truth; each command
 * rebuilds the machine's state from them inside its group-commit unit (units run one at a time, so two publishes
 * cannot both claim revision n), takes the shared durable step (runtime/actors/durable-step.ts), and writes
 * exactly what the step emitted: the rows are the record the step reads and moves.
 */
import { agentRevisionMachine, type AgentRevisionEmitted, type AgentRevisionEvent, type PublishFinding } from '../../machines/agent-revision.machine.js';
import type { Automation } from '../../storage/records/automations.js';
import type { PortRepositories } from '../../storage/port/storage.js';
import { durableMachine } from '../actors/durable-step.js';
import { isFrozenSetup, setupFromRow } from './agent-setup.js';

const durable = durableMachine(agentRevisionMachine);

/** `published` when the draft equals the revision runs use; `draft` otherwise (machine state descriptions). */
async function hydrate(automations: PortRepositories['automations'], automation: Automation) {
  const latest = await automations.latestAgentRevision(automation.id);
  const published = automation.publishedRevision === null ? undefined : await automations.agentRevision(automation.id, automation.publishedRevision);
  const setup = await automations.agentSetup(automation.id);
  const inSync = published !== undefined && isFrozenSetup(published.setup, setupFromRow(setup));
  return durable.resolve(inSync ? 'published' : 'draft', {
    agentId: automation.id,
    publishedRevision: automation.publishedRevision,
    revisionCount: latest?.revision ?? 0,
    publishedAt: published?.createdAt ?? null,
    draftUpdatedAt: setup?.updatedAt ?? null,
  });
}

/** What the machine decided for one event: the facts the caller writes rows for (`automations`: the unit's). */
export async function stepAgentRevision(
  automations: PortRepositories['automations'],
  automation: Automation,
  event: AgentRevisionEvent,
): Promise<readonly AgentRevisionEmitted[]> {
  return durable.step(await hydrate(automations, automation), [event]).emitted;
}

export type { PublishFinding };
