// Owns applying an organization's agents (setup, bindings, knowledge selection, revisions) and flows (versions).
import type { AutomationRow } from '../../storage/repos/automations.repo.js';
import { newId } from '../ids.js';
import type { AgentManifest } from './agent.schema.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { planBelt } from './belt.js';
import { canonicalJson } from './canonical-json.js';
import type { FlowManifest } from './flow.schema.js';
import { formatPath } from './manifest-error.js';
import type { OrganizationManifest } from './organization.schema.js';

type Kind = AutomationRow['kind'];

/** Creates or updates the automation row; returns its id. */
function upsertAutomation(ctx: ApplyContext, ids: OrganizationIds, kind: Kind, item: AgentManifest | FlowManifest, path: string): string {
  const repo = ctx.repos.automations;
  const exists = (id: string) => {
    const row = repo.automation(id);
    return row?.org_id === ids.orgId && row.kind === kind;
  };
  const fields = {
    domain_id: ids.domains.get(item.domain)!,
    name: item.name,
    description: item.description ?? null,
    entitled_by_default: item.entitled === false ? 0 : 1,
  };
  let id = ctx.book.lookup(ids.scope, item.ref, kind, path, exists);
  if (id === undefined) {
    id = newId();
    repo.insertAutomation({ id, org_id: ids.orgId, kind, ...fields, published_revision: null, created_by: null, created_at: ctx.now, updated_at: ctx.now });
  } else {
    const row = repo.automation(id)!;
    const changed = (Object.keys(fields) as Array<keyof typeof fields>).some((key) => row[key] !== fields[key]);
    if (changed) repo.updateAutomation({ id, ...fields, updated_at: ctx.now });
  }
  ctx.book.remember(ids.scope, item.ref, kind, id);
  ctx.refs[item.ref] = id;
  ids.automations.set(item.ref, id);
  return id;
}

function applyAgent(ctx: ApplyContext, ids: OrganizationIds, agent: AgentManifest, path: string): void {
  const repo = ctx.repos.automations;
  const id = upsertAutomation(ctx, ids, 'agent', agent, path);
  const { principles, procedure, model, approvalTools } = agent.setup;
  const setup = { automation_id: id, principles, procedure, model, approval_tools: JSON.stringify(approvalTools), updated_at: ctx.now };
  const stored = repo.agentSetup(id);
  if (stored === undefined || (['principles', 'procedure', 'model', 'approval_tools'] as const).some((key) => stored[key] !== setup[key])) {
    repo.upsertAgentSetup(setup);
  }

  const bindings = Object.entries(agent.bindings ?? {})
    .map(([integration_id, policy]) => ({ integration_id, policy }))
    .sort((a, b) => (a.integration_id < b.integration_id ? -1 : 1));
  const current = repo.agentBindings(id).map(({ integration_id, policy }) => ({ integration_id, policy }));
  if (canonicalJson(current) !== canonicalJson(bindings)) repo.replaceAgentBindings(id, bindings);

  // Absent: the selection is left as it is (it may be set through authoring since).
  if (agent.knowledge !== undefined) {
    const selection = {
      automation_id: id,
      mode: agent.knowledge.mode,
      module_ids: JSON.stringify((agent.knowledge.modules ?? []).map((ref) => ids.modules.get(ref)!)),
    };
    const had = repo.knowledgeSelection(id);
    if (had?.mode !== selection.mode || had.module_ids !== selection.module_ids) repo.upsertKnowledgeSelection(selection);
  }

  if (!agent.publish) return;
  // A revision freezes setup and belt; a new one only when either differs from the latest.
  const frozenSetup = JSON.stringify({ principles, procedure, model, approvalTools });
  const belt = JSON.stringify(planBelt(procedure, agent.bindings));
  const latest = repo.latestAgentRevision(id);
  if (latest === undefined || latest.setup !== frozenSetup || latest.belt !== belt) {
    const revision = (latest?.revision ?? 0) + 1;
    repo.insertAgentRevision({
      automation_id: id,
      revision,
      setup: frozenSetup,
      belt,
      change_note: agent.changeNote ?? null,
      published_by: null,
      created_at: ctx.now,
    });
    repo.setPublishedRevision(id, revision, ctx.now);
  } else if (repo.automation(id)!.published_revision === null) {
    repo.setPublishedRevision(id, latest.revision, ctx.now);
  }
}

function applyFlow(ctx: ApplyContext, ids: OrganizationIds, flow: FlowManifest, path: string): void {
  const repo = ctx.repos.automations;
  const id = upsertAutomation(ctx, ids, 'flow', flow, path);
  // Versions are immutable: the step graph is stored as a new version whenever it changes, published or not,
  // so a draft graph is kept; `publish` moves the served pointer to the latest version.
  const definition = canonicalJson({ inputs: flow.inputs, steps: flow.steps, output: flow.output ?? null });
  const bindings = canonicalJson(flow.bindings ?? {});
  const latest = repo.latestFlowVersion(id);
  let version = latest?.version ?? 0;
  if (latest === undefined || latest.definition !== definition || latest.bindings !== bindings) {
    version += 1;
    repo.insertFlowVersion({ automation_id: id, version, definition, bindings, created_at: ctx.now });
  }
  if (flow.publish && repo.automation(id)!.published_revision !== version) repo.setPublishedRevision(id, version, ctx.now);
}

/** Also applies a partner template's agents and flows into a provisioned organization (runtime/partners/onboarding.ts). */
export function applyAutomations(ctx: ApplyContext, ids: OrganizationIds, org: Pick<OrganizationManifest, 'agents' | 'flows'>, o: number): void {
  org.agents.forEach((agent, k) => applyAgent(ctx, ids, agent, formatPath(['organizations', o, 'agents', k])));
  org.flows.forEach((flow, k) => applyFlow(ctx, ids, flow, formatPath(['organizations', o, 'flows', k])));
}
