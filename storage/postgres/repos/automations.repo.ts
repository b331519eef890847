// Automations on PostgreSQL (storage/repos/automations.repo.ts's functions, async): agents, revisions, flows, versions, knowledge selection.
import type {
  AgentBinding, AgentDraft, AgentRevision, Automation, AutomationPageArgs, AutomationUpdate, FlowVersion, KnowledgeSelection,
} from '../../records/automations.js';
import { postgresCodec } from '../../row-codec.js';
import { automationRows, bindingFromRow, flowVersionSummaryFromRow, revisionSummaryFromRow } from '../../rows/automations.js';
import { replaceMembers } from './replace-members.js';
import { CREATION_ORDER, insert, keysetClause, keysetValues, many, one, run, upsert, write, type Queryable } from './sql.js';

const rows = automationRows(postgresCodec);

const BINDINGS = {
  parent: 'automations', table: 'agent_bindings', parentColumn: 'automation_id', memberColumn: 'integration_id',
  extra: { column: 'policy', type: 'text' }, constraint: 'agent_bindings_pkey',
};

export function createPostgresAutomationsRepo(q: Queryable) {
  return {
    insertAutomation: (automation: Automation): Promise<void> => insert(q, 'automations', rows.automationToRow(automation)),
    updateAutomation: (a: AutomationUpdate): Promise<void> => {
      const r = rows.updateToRow(a);
      return write(q, 'UPDATE automations SET domain_id = $1, name = $2, description = $3, entitled_by_default = $4, updated_at = $5 WHERE id = $6', [
        r.domain_id, r.name, r.description, r.entitled_by_default, r.updated_at, r.id,
      ]);
    },
    // Publishing (authoring, manifest, rollback) makes an archived automation live again: the pointer is the state.
    setPublishedRevision: (id: string, revision: number | null, now: number): Promise<void> =>
      write(q, 'UPDATE automations SET published_revision = $1, archived_at = NULL, archived_revision = NULL, updated_at = $2 WHERE id = $3', [revision, now, id]),
    automation: (id: string) => one(q, 'SELECT * FROM automations WHERE id = $1', [id], rows.automationFromRow),
    /**
     * Holds the automation's row lock until the unit's transaction ends, so two units numbering its next revision or
     * version (latest + 1) run one after the other; READ COMMITTED gives the statements after the wait a fresh snapshot
     * that sees the first one's row. FOR NO KEY UPDATE leaves other writers' foreign-key checks unblocked.
     */
    lockAutomation: (id: string): Promise<void> => write(q, 'SELECT 1 FROM automations WHERE id = $1 FOR NO KEY UPDATE', [id]),
    /** Puts the published pointer aside; false when already archived. */
    archiveAutomation: async (id: string, now: number): Promise<boolean> =>
      (await run(
        q,
        `UPDATE automations SET archived_at = $1, archived_revision = published_revision, published_revision = NULL, updated_at = $1
         WHERE id = $2 AND archived_at IS NULL`,
        [now, id],
      )) > 0,
    /** Restores the pointer an archive put aside; false when not archived. */
    unarchiveAutomation: async (id: string, now: number): Promise<boolean> =>
      (await run(
        q,
        `UPDATE automations SET published_revision = archived_revision, archived_at = NULL, archived_revision = NULL, updated_at = $1
         WHERE id = $2 AND archived_at IS NOT NULL`,
        [now, id],
      )) > 0,
    renameAutomation: (id: string, name: string, description: string | null, now: number): Promise<void> =>
      write(q, 'UPDATE automations SET name = $1, description = $2, updated_at = $3 WHERE id = $4', [name, description, now, id]),
    /** One page of the automations of an organization's domains `userId` is a member of, oldest first, after `after`. */
    automationsOfOrganizationPage: (...[orgId, userId, filter, after, limit]: AutomationPageArgs) =>
      many(
        q,
        `SELECT * FROM automations WHERE org_id = $1 AND domain_id IN (SELECT domain_id FROM domain_memberships WHERE user_id = $2)
           AND ($3::text IS NULL OR kind = $3) AND ($4::text IS NULL OR domain_id = $4)
           AND ($5::boolean IS NULL OR (archived_at IS NOT NULL) = $5)
           AND ${keysetClause(6)}`,
        [orgId, userId, filter.kind, filter.domainId, filter.archived, ...keysetValues(after, limit)],
        rows.automationFromRow,
      ),
    /** An agent's revisions (without their setup), newest first, below `before`. */
    agentRevisionsPage: (automationId: string, before: number, limit: number) =>
      many(
        q,
        `SELECT automation_id, revision, change_note, published_by, created_at FROM agent_revisions
         WHERE automation_id = $1 AND revision < $2 ORDER BY revision DESC LIMIT $3`,
        [automationId, before, limit],
        revisionSummaryFromRow,
      ),
    /** A flow's versions (without their definition), newest first, below `before`. */
    flowVersionsPage: (automationId: string, before: number, limit: number) =>
      many(
        q,
        'SELECT automation_id, version, created_at FROM flow_versions WHERE automation_id = $1 AND version < $2 ORDER BY version DESC LIMIT $3',
        [automationId, before, limit],
        flowVersionSummaryFromRow,
      ),
    automationsOfDomain: (domainId: string) => many(q, `SELECT * FROM automations WHERE domain_id = $1 ${CREATION_ORDER}`, [domainId], rows.automationFromRow),
    automationsOfOrganization: (orgId: string) => many(q, `SELECT * FROM automations WHERE org_id = $1 ${CREATION_ORDER}`, [orgId], rows.automationFromRow),
    upsertAgentSetup: (draft: AgentDraft): Promise<void> =>
      upsert(q, 'agent_setups', rows.draftToRow(draft), '(automation_id)', ['principles', 'procedure', 'model', 'approval_tools', 'updated_at']),
    agentSetup: (automationId: string) => one(q, 'SELECT * FROM agent_setups WHERE automation_id = $1', [automationId], rows.draftFromRow),
    /** Makes the agent's bindings exactly `bindings` (inside a unit of work: see replaceMembers). */
    replaceAgentBindings: (automationId: string, bindings: ReadonlyArray<Omit<AgentBinding, 'automationId'>>): Promise<void> =>
      replaceMembers(q, BINDINGS, automationId, bindings.map((b) => b.integrationId), bindings.map((b) => b.policy)),
    agentBindings: (automationId: string) =>
      many(q, 'SELECT * FROM agent_bindings WHERE automation_id = $1 ORDER BY integration_id COLLATE "C"', [automationId], bindingFromRow),
    insertAgentRevision: (revision: AgentRevision): Promise<void> => insert(q, 'agent_revisions', rows.revisionToRow(revision)),
    agentRevision: (automationId: string, revision: number) =>
      one(q, 'SELECT * FROM agent_revisions WHERE automation_id = $1 AND revision = $2', [automationId, revision], rows.revisionFromRow),
    latestAgentRevision: (automationId: string) =>
      one(q, 'SELECT * FROM agent_revisions WHERE automation_id = $1 ORDER BY revision DESC LIMIT 1', [automationId], rows.revisionFromRow),
    insertFlowVersion: (version: FlowVersion): Promise<void> => insert(q, 'flow_versions', rows.flowVersionToRow(version)),
    flowVersion: (automationId: string, version: number) =>
      one(q, 'SELECT * FROM flow_versions WHERE automation_id = $1 AND version = $2', [automationId, version], rows.flowVersionFromRow),
    latestFlowVersion: (automationId: string) =>
      one(q, 'SELECT * FROM flow_versions WHERE automation_id = $1 ORDER BY version DESC LIMIT 1', [automationId], rows.flowVersionFromRow),
    upsertKnowledgeSelection: (selection: KnowledgeSelection): Promise<void> =>
      upsert(q, 'knowledge_selections', rows.selectionToRow(selection), '(automation_id)', ['mode', 'module_ids']),
    knowledgeSelection: (automationId: string) =>
      one(q, 'SELECT * FROM knowledge_selections WHERE automation_id = $1', [automationId], rows.selectionFromRow),
  };
}
