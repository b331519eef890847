// Automations: agents (draft setup, bindings, immutable revisions, knowledge selection) and flows (immutable versions).
import type { SqliteDatabase } from '../database.js';
import { sqliteCodec } from '../row-codec.js';
import { mapOptional } from '../row-mapping.js';
import type {
  AgentBinding, AgentDraft, AgentRevision, AgentRevisionSummary, Automation, AutomationPageArgs, AutomationUpdate, FlowVersion, FlowVersionSummary,
  KnowledgeSelection,
} from '../records/automations.js';
import { keysetAfter, keysetAfterParams } from './keyset.js';
import {
  automationRows, bindingFromRow, flowVersionSummaryFromRow, revisionSummaryFromRow, type AgentBindingRow, type AgentRevisionRow,
  type AutomationRow, type FlowVersionRow,
} from '../rows/automations.js';

export type { AutomationKind, BindingPolicy, KnowledgeMode } from '../records/automations.js';

const {
  automationFromRow, automationToRow, updateToRow, draftFromRow, draftToRow, revisionFromRow, revisionToRow, flowVersionFromRow,
  flowVersionToRow, selectionFromRow, selectionToRow,
} = automationRows(sqliteCodec);

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
    // Publishing (authoring, manifest, rollback) makes an archived automation live again: the pointer is the state.
    setPublished: db.prepare('UPDATE automations SET published_revision = ?, archived_at = NULL, archived_revision = NULL, updated_at = ? WHERE id = ?'),
    archive: db.prepare(
      `UPDATE automations SET archived_at = @now, archived_revision = published_revision, published_revision = NULL, updated_at = @now
       WHERE id = @id AND archived_at IS NULL`,
    ),
    unarchive: db.prepare(
      `UPDATE automations SET published_revision = archived_revision, archived_at = NULL, archived_revision = NULL, updated_at = @now
       WHERE id = @id AND archived_at IS NOT NULL`,
    ),
    rename: db.prepare('UPDATE automations SET name = @name, description = @description, updated_at = @now WHERE id = @id'),
    ofOrgPage: db.prepare(
      `SELECT * FROM automations WHERE org_id = @org AND domain_id IN (SELECT domain_id FROM domain_memberships WHERE user_id = @user)
         AND (@kind IS NULL OR kind = @kind) AND (@domain IS NULL OR domain_id = @domain)
         AND (@archived IS NULL OR (archived_at IS NOT NULL) = @archived)
         AND ${keysetAfter()}`,
    ),
    revisionsPage: db.prepare(
      `SELECT automation_id, revision, change_note, published_by, created_at FROM agent_revisions
       WHERE automation_id = @id AND revision < @before ORDER BY revision DESC LIMIT @limit`,
    ),
    flowVersionsPage: db.prepare(
      `SELECT automation_id, version, created_at FROM flow_versions WHERE automation_id = @id AND version < @before
       ORDER BY version DESC LIMIT @limit`,
    ),
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
  const replaceBindings = db.transaction((automationId: string, bindings: ReadonlyArray<Omit<AgentBinding, 'automationId'>>) => {
    s.deleteBindings.run(automationId);
    for (const b of bindings) s.insertBinding.run(automationId, b.integrationId, b.policy);
  });

  return {
    insertAutomation: (automation: Automation): void => void s.insert.run(automationToRow(automation)),
    updateAutomation: (a: AutomationUpdate): void => void s.update.run(updateToRow(a)),
    setPublishedRevision: (id: string, revision: number | null, now: number): void => void s.setPublished.run(revision, now, id),
    automation: (id: string): Automation | undefined => mapOptional(s.byId.get(id), automationFromRow),
    /** Orders a unit's revision numbering against other writers of this automation: SQLite's one writer already does. */
    lockAutomation: (_id: string): void => {},
    /** Puts the published pointer aside; false when already archived. */
    archiveAutomation: (id: string, now: number): boolean => s.archive.run({ id, now }).changes > 0,
    /** Restores the pointer an archive put aside; false when not archived. */
    unarchiveAutomation: (id: string, now: number): boolean => s.unarchive.run({ id, now }).changes > 0,
    renameAutomation: (id: string, name: string, description: string | null, now: number): void => void s.rename.run({ id, name, description, now }),
    /** One page of the automations of an organization's domains `userId` is a member of, oldest first, after `after`. */
    automationsOfOrganizationPage: (...[orgId, userId, filter, after, limit]: AutomationPageArgs): Automation[] =>
      (s.ofOrgPage.all({
        org: orgId,
        user: userId,
        kind: filter.kind,
        domain: filter.domainId,
        archived: filter.archived === null ? null : Number(filter.archived),
        ...keysetAfterParams(after, limit),
      }) as AutomationRow[]).map(automationFromRow),
    /** An agent's revisions (without their setup), newest first, below `before`. */
    agentRevisionsPage: (automationId: string, before: number, limit: number): AgentRevisionSummary[] =>
      (s.revisionsPage.all({ id: automationId, before, limit }) as Array<Omit<AgentRevisionRow, 'setup' | 'belt'>>).map(revisionSummaryFromRow),
    /** A flow's versions (without their definition), newest first, below `before`. */
    flowVersionsPage: (automationId: string, before: number, limit: number): FlowVersionSummary[] =>
      (s.flowVersionsPage.all({ id: automationId, before, limit }) as FlowVersionRow[]).map(flowVersionSummaryFromRow),
    automationsOfDomain: (domainId: string): Automation[] => (s.ofDomain.all(domainId) as AutomationRow[]).map(automationFromRow),
    automationsOfOrganization: (orgId: string): Automation[] => (s.ofOrg.all(orgId) as AutomationRow[]).map(automationFromRow),
    upsertAgentSetup: (draft: AgentDraft): void => void s.upsertSetup.run(draftToRow(draft)),
    agentSetup: (automationId: string): AgentDraft | undefined => mapOptional(s.setup.get(automationId), draftFromRow),
    /** Makes the agent's bindings exactly `bindings`. */
    replaceAgentBindings: (automationId: string, bindings: ReadonlyArray<Omit<AgentBinding, 'automationId'>>): void =>
      replaceBindings(automationId, bindings),
    agentBindings: (automationId: string): AgentBinding[] => (s.bindings.all(automationId) as AgentBindingRow[]).map(bindingFromRow),
    insertAgentRevision: (revision: AgentRevision): void => void s.insertRevision.run(revisionToRow(revision)),
    agentRevision: (automationId: string, revision: number): AgentRevision | undefined =>
      mapOptional(s.revision.get(automationId, revision), revisionFromRow),
    latestAgentRevision: (automationId: string): AgentRevision | undefined => mapOptional(s.latestRevision.get(automationId), revisionFromRow),
    insertFlowVersion: (version: FlowVersion): void => void s.insertFlowVersion.run(flowVersionToRow(version)),
    flowVersion: (automationId: string, version: number): FlowVersion | undefined => mapOptional(s.flowVersion.get(automationId, version), flowVersionFromRow),
    latestFlowVersion: (automationId: string): FlowVersion | undefined => mapOptional(s.latestFlowVersion.get(automationId), flowVersionFromRow),
    upsertKnowledgeSelection: (selection: KnowledgeSelection): void =>
      void s.upsertSelection.run(selectionToRow(selection)),
    knowledgeSelection: (automationId: string): KnowledgeSelection | undefined => mapOptional(s.selection.get(automationId), selectionFromRow),
  };
}

export type AutomationsRepo = ReturnType<typeof createAutomationsRepo>;
