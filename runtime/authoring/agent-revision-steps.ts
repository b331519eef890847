// Owns driving the agent-revision machine: its state is derived from the stored rows inside the unit of work that writes its effects.
/*
 * Why not a persisted actor: revisions are also written by manifest apply (runtime/manifest/apply-automations.ts),
 * so a separately stored snapshot could disagree with agent_revisions. The rows are the truth; each command
 * rebuilds the machine's state from them inside its group-commit unit (units run one at a time, so two publishes
 * cannot both claim revision n), takes the shared durable step (runtime/actors/durable-step.ts), and writes
 * exactly what the step emitted: the rows are the record the step reads and moves.
 */
import { agentRevisionMachine, type AgentRevisionEmitted, type AgentRevisionEvent, type PublishFinding } from '../../machines/agent-revision.machine.js';
import type { AutomationRow, AutomationsRepo } from '../../storage/repos/automations.repo.js';
import { durableMachine } from '../actors/durable-step.js';
import { frozenSetup, setupFromRow } from './agent-setup.js';

const durable = durableMachine(agentRevisionMachine);

/** `published` when the draft equals the revision runs use; `draft` otherwise (machine state descriptions). */
function hydrate(automations: AutomationsRepo, automation: AutomationRow) {
  const latest = automations.latestAgentRevision(automation.id);
  const published = automation.published_revision === null ? undefined : automations.agentRevision(automation.id, automation.published_revision);
  const setup = automations.agentSetup(automation.id);
  const inSync = published !== undefined && published.setup === frozenSetup(setupFromRow(setup));
  return durable.resolve(inSync ? 'published' : 'draft', {
    agentId: automation.id,
    publishedRevision: automation.published_revision,
    revisionCount: latest?.revision ?? 0,
    publishedAt: published?.created_at ?? null,
    draftUpdatedAt: setup?.updated_at ?? null,
  });
}

/** What the machine decided for one event: the facts the caller writes rows for. */
export function stepAgentRevision(automations: AutomationsRepo, automation: AutomationRow, event: AgentRevisionEvent): readonly AgentRevisionEmitted[] {
  return durable.step(hydrate(automations, automation), [event]).emitted;
}

export type { PublishFinding };
