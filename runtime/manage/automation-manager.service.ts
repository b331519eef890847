// Owns automation management: list agents and flows, revision history, rename/describe, roll back, archive.
/*
 * Archive (docs/decisions.md "Archived automations"): the published pointer is put aside (automations.
 * archived_revision) and published_revision becomes NULL, so every run path already refuses it as unpublished:
 * opening a session is the uniform 404, a trigger firing records the subscriber as skipped NOT_PUBLISHED, MCP lists
 * no tool for it. Subscriptions stay, so unarchive (or a new publish) restores exactly what ran before.
 * Reading needs any role in the automation's domain; changing it needs edit_automation there.
 */
import type { Automation, AutomationKind } from '../../storage/records/automations.js';
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import { requireDomainPermission } from '../authoring/authoring-access.js';
import { toIso, type Clock } from '../clock.js';
import { AppError, forbidden, notFound, validation } from '../errors.js';
import { isUuid } from '../ids.js';
import { byCreation, keysetPage, revisionPage } from '../paging/keyset-page.js';

export interface AutomationSummary {
  id: string;
  kind: AutomationKind;
  domainId: string;
  name: string;
  description: string | null;
  /** The revision (agents) or version (flows) that runs; null when unpublished or archived. */
  publishedRevision: number | null;
  archived: boolean;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RevisionSummary {
  /** Agent revision or flow version number. */
  revision: number;
  createdAt: string;
  /** Agents only (null for flow versions and for manifest-published revisions without a recorded user). */
  publishedBy: string | null;
  changeNote: string | null;
  /** True for the revision the published pointer (or, while archived, the set-aside pointer) names. */
  current: boolean;
}

export interface AutomationListQuery {
  kind?: AutomationKind;
  domainId?: string;
  archived?: boolean;
  limit: number;
  cursor?: string;
}

export interface Caller {
  readonly userId: string;
  readonly orgId: string;
}

export interface AutomationManager {
  list(caller: Caller, query: AutomationListQuery): Promise<{ automations: AutomationSummary[]; nextCursor: string | null }>;
  read(caller: Caller, automationId: string): Promise<AutomationSummary>;
  revisions(caller: Caller, automationId: string, page: { limit: number; cursor?: string }): Promise<{ revisions: RevisionSummary[]; nextCursor: string | null }>;
  describe(caller: Caller, automationId: string, patch: { name?: string; description?: string | null }): Promise<AutomationSummary>;
  rollback(caller: Caller, automationId: string, revision: number): Promise<AutomationSummary>;
  setArchived(caller: Caller, automationId: string, archived: boolean): Promise<AutomationSummary>;
}

export const automationSummary = (row: Automation): AutomationSummary => ({
  id: row.id,
  kind: row.kind,
  domainId: row.domainId,
  name: row.name,
  description: row.description,
  publishedRevision: row.publishedRevision,
  archived: row.archivedAt != null,
  archivedAt: row.archivedAt == null ? null : toIso(row.archivedAt),
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});

export function createAutomationManager(deps: { store: Storage; clock: Clock }): AutomationManager {
  const { store, clock } = deps;
  const { repos } = store;

  // `from`: the store's repositories for reads, the unit's (`tx.repos`) inside one.
  const ofCaller = async (from: PortRepositories, caller: Caller, automationId: string): Promise<Automation> => {
    const automation = isUuid(automationId) ? await from.automations.automation(automationId) : undefined;
    if (automation === undefined || automation.orgId !== caller.orgId) throw notFound();
    return automation;
  };

  const readable = async (caller: Caller, automationId: string): Promise<Automation> => {
    const automation = await ofCaller(repos, caller, automationId);
    if ((await repos.tenancy.domainRole(automation.domainId, caller.userId)) === null) throw forbidden('You are not a member of this automation\'s domain.');
    return automation;
  };

  const editable = async (from: PortRepositories, caller: Caller, automationId: string): Promise<Automation> => {
    const automation = await ofCaller(from, caller, automationId);
    await requireDomainPermission(from, caller, automation.domainId, 'edit_automation');
    return automation;
  };

  const hasRevision = async (from: PortRepositories, automation: Automation, revision: number): Promise<boolean> =>
    automation.kind === 'agent'
      ? (await from.automations.agentRevision(automation.id, revision)) !== undefined
      : (await from.automations.flowVersion(automation.id, revision)) !== undefined;

  const reread = async (from: PortRepositories, id: string): Promise<AutomationSummary> => automationSummary((await from.automations.automation(id))!);

  return {
    async list(caller, query) {
      const filter = { kind: query.kind ?? null, domainId: query.domainId ?? null, archived: query.archived ?? null };
      const page = await keysetPage(
        query.cursor,
        query.limit,
        (after, n) => repos.automations.automationsOfOrganizationPage(caller.orgId, caller.userId, filter, after, n),
        byCreation,
      );
      return { automations: page.rows.map(automationSummary), nextCursor: page.nextCursor };
    },

    read: async (caller, automationId) => automationSummary(await readable(caller, automationId)),

    async revisions(caller, automationId, options) {
      const automation = await readable(caller, automationId);
      const current = automation.publishedRevision ?? automation.archivedRevision ?? null;
      if (automation.kind === 'agent') {
        const page = await revisionPage(options.cursor, options.limit, (below, n) => repos.automations.agentRevisionsPage(automation.id, below, n), (r) => r.revision);
        const revisions = page.rows.map((r) => ({
          revision: r.revision,
          createdAt: toIso(r.createdAt),
          publishedBy: r.publishedBy,
          changeNote: r.changeNote,
          current: r.revision === current,
        }));
        return { revisions, nextCursor: page.nextCursor };
      }
      const page = await revisionPage(options.cursor, options.limit, (below, n) => repos.automations.flowVersionsPage(automation.id, below, n), (v) => v.version);
      const revisions = page.rows.map((v) => ({ revision: v.version, createdAt: toIso(v.createdAt), publishedBy: null, changeNote: null, current: v.version === current }));
      return { revisions, nextCursor: page.nextCursor };
    },

    describe(caller, automationId, patch) {
      return store.writer.submit(async (tx) => {
        const automation = await editable(tx.repos, caller, automationId);
        const description = patch.description === undefined ? automation.description : patch.description;
        await tx.repos.automations.renameAutomation(automation.id, patch.name ?? automation.name, description, clock.now());
        return reread(tx.repos, automation.id);
      });
    },

    rollback(caller, automationId, revision) {
      return store.writer.submit(async (tx) => {
        const automation = await editable(tx.repos, caller, automationId);
        if (automation.archivedAt != null) {
          throw new AppError('CONFLICT', 'Unarchive the automation before moving its published revision.', { reason: 'automation_archived' });
        }
        if (!(await hasRevision(tx.repos, automation, revision))) {
          throw validation('The published revision cannot be moved.', { issues: [{ path: 'revision', message: `is not a published ${automation.kind === 'agent' ? 'revision' : 'version'} of this ${automation.kind}` }] });
        }
        // Immutable revisions make this a pointer move: running sessions keep their own revision, new ones get this.
        await tx.repos.automations.setPublishedRevision(automation.id, revision, clock.now());
        return reread(tx.repos, automation.id);
      });
    },

    setArchived(caller, automationId, archived) {
      return store.writer.submit(async (tx) => {
        const automation = await editable(tx.repos, caller, automationId);
        // Idempotent both ways: archiving an archived automation changes nothing.
        if (archived) await tx.repos.automations.archiveAutomation(automation.id, clock.now());
        else await tx.repos.automations.unarchiveAutomation(automation.id, clock.now());
        return reread(tx.repos, automation.id);
      });
    },
  };
}
