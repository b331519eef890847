// Automations: agents (draft setup, bindings, immutable revisions, knowledge selection) and flows (immutable versions).
import type { SqliteDatabase } from '../database.js';

export type AutomationKind = 'agent' | 'flow';
export type BindingPolicy = 'service' | 'caller_preferred' | 'caller_required';
export type KnowledgeMode = 'none' | 'org' | 'domain' | 'modules';

export interface AutomationRow {
  id: string;
  org_id: string;
  domain_id: string;
  kind: AutomationKind;
  name: string;
  description: string | null;
  published_revision: number | null;
  entitled_by_default: number;
  created_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface AgentSetupRow {
  automation_id: string;
  principles: string;
  procedure: string;
  model: string;
  /** JSON array of tool wire ids. */
  approval_tools: string;
  updated_at: number;
}

export interface AgentBindingRow {
  automation_id: string;
  integration_id: string;
  policy: BindingPolicy;
}

export interface AgentRevisionRow {
  automation_id: string;
  revision: number;
  /** JSON: the setup frozen at publish time. */
  setup: string;
  /** JSON: `[{ integrationId, identityMode }]` planned at publish time. */
  belt: string;
  change_note: string | null;
  published_by: string | null;
  created_at: number;
}

export interface FlowVersionRow {
  automation_id: string;
  version: number;
  /** JSON: `{ inputs, steps, output }`. */
  definition: string;
  /** JSON: integration id -> binding policy. */
  bindings: string;
  created_at: number;
}

export interface KnowledgeSelectionRow {
  automation_id: string;
  mode: KnowledgeMode;
  /** JSON array of knowledge module ids. */
  module_ids: string;
}

export function createAutomationsRepo(db: SqliteDatabase) {
  const s = {
    insert: db.prepare(
      `INSERT INTO automations (id, org_id, domain_id, kind, name, description, published_revision, entitled_by_default, created_by, created_at, updated_at)
       VALUES (@id, @org_id, @domain_id, @kind, @name, @description, @published_revision, @entitled_by_default, @created_by, @created_at, @updated_at)`,
    ),
    update: db.prepare(
      `UPDATE automations SET domain_id = @domain_id, name = @name, description = @description,
         entitled_by_default = @entitled_by_default, updated_at = @updated_at WHERE id = @id`,
    ),
    setPublished: db.prepare('UPDATE automations SET published_revision = ?, updated_at = ? WHERE id = ?'),
    byId: db.prepare('SELECT * FROM automations WHERE id = ?'),
    ofDomain: db.prepare('SELECT * FROM automations WHERE domain_id = ? ORDER BY created_at, id'),
    ofOrg: db.prepare('SELECT * FROM automations WHERE org_id = ? ORDER BY created_at, id'),
    upsertSetup: db.prepare(
      `INSERT INTO agent_setups (automation_id, principles, procedure, model, approval_tools, updated_at)
       VALUES (@automation_id, @principles, @procedure, @model, @approval_tools, @updated_at)
       ON CONFLICT (automation_id) DO UPDATE SET principles = excluded.principles, procedure = excluded.procedure,
         model = excluded.model, approval_tools = excluded.approval_tools, updated_at = excluded.updated_at`,
    ),
    setup: db.prepare('SELECT * FROM agent_setups WHERE automation_id = ?'),
    deleteBindings: db.prepare('DELETE FROM agent_bindings WHERE automation_id = ?'),
    insertBinding: db.prepare('INSERT INTO agent_bindings (automation_id, integration_id, policy) VALUES (?, ?, ?)'),
    bindings: db.prepare('SELECT * FROM agent_bindings WHERE automation_id = ? ORDER BY integration_id'),
    insertRevision: db.prepare(
      `INSERT INTO agent_revisions (automation_id, revision, setup, belt, change_note, published_by, created_at)
       VALUES (@automation_id, @revision, @setup, @belt, @change_note, @published_by, @created_at)`,
    ),
    revision: db.prepare('SELECT * FROM agent_revisions WHERE automation_id = ? AND revision = ?'),
    latestRevision: db.prepare('SELECT * FROM agent_revisions WHERE automation_id = ? ORDER BY revision DESC LIMIT 1'),
    insertFlowVersion: db.prepare(
      `INSERT INTO flow_versions (automation_id, version, definition, bindings, created_at)
       VALUES (@automation_id, @version, @definition, @bindings, @created_at)`,
    ),
    flowVersion: db.prepare('SELECT * FROM flow_versions WHERE automation_id = ? AND version = ?'),
    latestFlowVersion: db.prepare('SELECT * FROM flow_versions WHERE automation_id = ? ORDER BY version DESC LIMIT 1'),
    upsertSelection: db.prepare(
      `INSERT INTO knowledge_selections (automation_id, mode, module_ids) VALUES (@automation_id, @mode, @module_ids)
       ON CONFLICT (automation_id) DO UPDATE SET mode = excluded.mode, module_ids = excluded.module_ids`,
    ),
    selection: db.prepare('SELECT * FROM knowledge_selections WHERE automation_id = ?'),
  };

  // Savepoint when called inside an outer transaction, its own transaction otherwise.
  const replaceBindings = db.transaction((automationId: string, bindings: ReadonlyArray<Omit<AgentBindingRow, 'automation_id'>>) => {
    s.deleteBindings.run(automationId);
    for (const b of bindings) s.insertBinding.run(automationId, b.integration_id, b.policy);
  });

  return {
    insertAutomation: (row: AutomationRow): void => void s.insert.run(row),
    updateAutomation: (row: Pick<AutomationRow, 'id' | 'domain_id' | 'name' | 'description' | 'entitled_by_default' | 'updated_at'>): void =>
      void s.update.run(row),
    setPublishedRevision: (id: string, revision: number | null, now: number): void => void s.setPublished.run(revision, now, id),
    automation: (id: string) => s.byId.get(id) as AutomationRow | undefined,
    automationsOfDomain: (domainId: string) => s.ofDomain.all(domainId) as AutomationRow[],
    automationsOfOrganization: (orgId: string) => s.ofOrg.all(orgId) as AutomationRow[],
    upsertAgentSetup: (row: AgentSetupRow): void => void s.upsertSetup.run(row),
    agentSetup: (automationId: string) => s.setup.get(automationId) as AgentSetupRow | undefined,
    /** Makes the agent's bindings exactly `bindings`. */
    replaceAgentBindings: (automationId: string, bindings: ReadonlyArray<Omit<AgentBindingRow, 'automation_id'>>): void =>
      replaceBindings(automationId, bindings),
    agentBindings: (automationId: string) => s.bindings.all(automationId) as AgentBindingRow[],
    insertAgentRevision: (row: AgentRevisionRow): void => void s.insertRevision.run(row),
    agentRevision: (automationId: string, revision: number) => s.revision.get(automationId, revision) as AgentRevisionRow | undefined,
    latestAgentRevision: (automationId: string) => s.latestRevision.get(automationId) as AgentRevisionRow | undefined,
    insertFlowVersion: (row: FlowVersionRow): void => void s.insertFlowVersion.run(row),
    flowVersion: (automationId: string, version: number) => s.flowVersion.get(automationId, version) as FlowVersionRow | undefined,
    latestFlowVersion: (automationId: string) => s.latestFlowVersion.get(automationId) as FlowVersionRow | undefined,
    upsertKnowledgeSelection: (row: KnowledgeSelectionRow): void => void s.upsertSelection.run(row),
    knowledgeSelection: (automationId: string) => s.selection.get(automationId) as KnowledgeSelectionRow | undefined,
  };
}

export type AutomationsRepo = ReturnType<typeof createAutomationsRepo>;
