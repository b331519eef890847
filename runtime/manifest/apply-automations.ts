// Owns applying an organization's agents (setup, bindings, knowledge selection, revisions) and flows (versions).
import type { Automation } from '../../storage/records/automations.js';
import { newId } from '../ids.js';
import type { AgentManifest } from './agent.schema.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { planBelt } from './belt.js';
import { canonicalJson, canonicalValue } from './canonical-json.js';
import type { FlowManifest } from './flow.schema.js';
import { formatPath } from './manifest-error.js';
import type { OrganizationManifest } from './organization.schema.js';

type Kind = Automation['kind'];

/** Creates or updates the automation row; returns its id. */
async function upsertAutomation(ctx: ApplyContext, ids: OrganizationIds, kind: Kind, item: AgentManifest | FlowManifest, path: string): Promise<string> {
  const repo = ctx.repos.automations;
  const exists = async (id: string) => {
    const row = await repo.automation(id);
    return row?.orgId === ids.orgId && row.kind === kind;
  };
  const fields = {
    domainId: ids.domains.get(item.domain)!,
    name: item.name,
    description: item.description ?? null,
    entitledByDefault: item.entitled !== false,
  };
  let id = await ctx.book.lookup(ids.scope, item.ref, kind, path, exists);
  if (id === undefined) {
    id = newId();
    await repo.insertAutomation({
      id, orgId: ids.orgId, kind, ...fields, publishedRevision: null, createdBy: null, createdAt: ctx.now, updatedAt: ctx.now, archivedAt: null, archivedRevision: null,
    });
  } else {
    const row = (await repo.automation(id))!;
    const changed = (Object.keys(fields) as Array<keyof typeof fields>).some((key) => row[key] !== fields[key]);
    if (changed) await repo.updateAutomation({ id, ...fields, updatedAt: ctx.now });
  }
  await ctx.book.remember(ids.scope, item.ref, kind, id);
  ctx.refs[item.ref] = id;
  ids.automations.set(item.ref, id);
  return id;
}

async function applyAgent(ctx: ApplyContext, ids: OrganizationIds, agent: AgentManifest, path: string): Promise<void> {
  const repo = ctx.repos.automations;
  const id = await upsertAutomation(ctx, ids, 'agent', agent, path);
  const { principles, procedure, model, approvalTools } = agent.setup;
  const setup = { automationId: id, principles, procedure, model, approvalTools, updatedAt: ctx.now };
  const stored = await repo.agentSetup(id);
  const same = (key: 'principles' | 'procedure' | 'model') => stored![key] === setup[key];
  if (stored === undefined || !same('principles') || !same('procedure') || !same('model') || JSON.stringify(stored.approvalTools) !== JSON.stringify(approvalTools)) {
    await repo.upsertAgentSetup(setup);
  }

  const bindings = Object.entries(agent.bindings ?? {})
    .map(([integrationId, policy]) => ({ integrationId, policy }))
    .sort((a, b) => (a.integrationId < b.integrationId ? -1 : 1));
  const current = (await repo.agentBindings(id)).map(({ integrationId, policy }) => ({ integrationId, policy }));
  if (canonicalJson(current) !== canonicalJson(bindings)) await repo.replaceAgentBindings(id, bindings);

  // Absent: the selection is left as it is (it may be set through authoring since).
  if (agent.knowledge !== undefined) {
    const selection = {
      automationId: id,
      mode: agent.knowledge.mode,
      moduleIds: (agent.knowledge.modules ?? []).map((ref) => ids.modules.get(ref)!),
    };
    const had = await repo.knowledgeSelection(id);
    if (had?.mode !== selection.mode || JSON.stringify(had.moduleIds) !== JSON.stringify(selection.moduleIds)) await repo.upsertKnowledgeSelection(selection);
  }

  if (!agent.publish) return;
  // A revision freezes setup and belt; a new one only when either differs from the latest.
  const frozenSetup = { principles, procedure, model, approvalTools };
  const belt = planBelt(procedure, agent.bindings);
  const latest = await repo.latestAgentRevision(id);
  // Compared as stored text: the same key order the revision was written with.
  if (latest === undefined || JSON.stringify(latest.setup) !== JSON.stringify(frozenSetup) || JSON.stringify(latest.belt) !== JSON.stringify(belt)) {
    const revision = (latest?.revision ?? 0) + 1;
    await repo.insertAgentRevision({
      automationId: id,
      revision,
      setup: frozenSetup,
      belt,
      changeNote: agent.changeNote ?? null,
      publishedBy: null,
      createdAt: ctx.now,
    });
    await repo.setPublishedRevision(id, revision, ctx.now);
  } else if ((await repo.automation(id))!.publishedRevision === null) {
    await repo.setPublishedRevision(id, latest.revision, ctx.now);
  }
}

async function applyFlow(ctx: ApplyContext, ids: OrganizationIds, flow: FlowManifest, path: string): Promise<void> {
  const repo = ctx.repos.automations;
  const id = await upsertAutomation(ctx, ids, 'flow', flow, path);
  // Versions are immutable: the step graph is stored as a new version whenever it changes, published or not,
  // so a draft graph is kept; `publish` moves the served pointer to the latest version.
  const definition = canonicalValue({ inputs: flow.inputs, steps: flow.steps, output: flow.output ?? null });
  const bindings = canonicalValue(flow.bindings ?? {});
  const latest = await repo.latestFlowVersion(id);
  let version = latest?.version ?? 0;
  if (latest === undefined || canonicalJson(latest.definition) !== canonicalJson(definition) || canonicalJson(latest.bindings) !== canonicalJson(bindings)) {
    version += 1;
    await repo.insertFlowVersion({ automationId: id, version, definition, bindings, createdAt: ctx.now });
  }
  if (flow.publish && (await repo.automation(id))!.publishedRevision !== version) await repo.setPublishedRevision(id, version, ctx.now);
}

/** Also applies a partner template's agents and flows into a provisioned organization (runtime/partners/onboarding.ts). */
export async function applyAutomations(
  ctx: ApplyContext,
  ids: OrganizationIds,
  org: Pick<OrganizationManifest, 'agents' | 'flows'>,
  o: number,
): Promise<void> {
  for (const [k, agent] of org.agents.entries()) await applyAgent(ctx, ids, agent, formatPath(['organizations', o, 'agents', k]));
  for (const [k, flow] of org.flows.entries()) await applyFlow(ctx, ids, flow, formatPath(['organizations', o, 'flows', k]));
}
