// Flows from their JSON definition over HTTP (issue 13 item 6): create, add a version, publish a version.
/*
 * The same rules as a manifest's flows (runtime/manifest/apply-automations.ts), which stay the declarative path:
 * versions are immutable and numbered from 1, a new version only when the graph or bindings changed, `publish`
 * moves the served pointer. Unlike apply, every version is checked by validateFlowDefinition when it is stored
 * (422 VALIDATION with the issues), so nothing unpublishable is ever kept. Authoring rule: `edit_automation` in
 * the flow's domain (as for agents; organization Owner/Admin status does not grant it).
 */
import type { Storage } from '../../storage/port/storage.js';
import type { Automation, FlowVersion } from '../../storage/records/automations.js';
import { domainOf, editableAutomation, requireDomainPermission, type Author } from '../authoring/authoring-access.js';
import { toIso, type Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { canonicalJson, canonicalValue } from '../manifest/canonical-json.js';
import { validateFlowDefinition } from '../flows/validate-flow.js';
import { organizationCatalog } from '../turns/turn-tools.js';

export interface FlowView {
  flowId: string;
  domainId: string;
  name: string;
  description: string | null;
  publishedVersion: number | null;
  latestVersion: number;
  createdAt: string;
  updatedAt: string;
}

export interface FlowsService {
  create(author: Author, input: { domainId: string; name: string; description?: string | null; definition: unknown; publish?: boolean }): Promise<FlowView>;
  read(author: Author, flowId: string): Promise<FlowView & { definition: unknown }>;
  addVersion(author: Author, flowId: string, input: { definition: unknown; publish?: boolean }): Promise<FlowView & { created: boolean }>;
  publish(author: Author, flowId: string, input: { version: number }): Promise<FlowView>;
}

export function createFlowsService(deps: { store: Storage; clock: Clock }): FlowsService {
  const { repos, writer } = deps.store;
  const { automations } = repos;

  const flowOf = async (author: Author, flowId: string): Promise<Automation> => {
    const row = await editableAutomation(repos, author, flowId);
    if (row.kind !== 'flow') throw notFound();
    return row;
  };

  const view = async (row: Automation): Promise<FlowView> => ({
    flowId: row.id,
    domainId: row.domainId,
    name: row.name,
    description: row.description,
    publishedVersion: row.publishedRevision,
    latestVersion: (await automations.latestFlowVersion(row.id))?.version ?? 0,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  });

  /** Checked against the tools and integrations this organization can use; stored canonical, as apply stores it. */
  async function checked(orgId: string, definition: unknown): Promise<Pick<FlowVersion, 'definition' | 'bindings'>> {
    const result = validateFlowDefinition(definition, await organizationCatalog(repos.integrations, orgId));
    if (!result.ok) {
      const issues = result.issues.map((i) => ({ path: `definition.${i.path}`, message: i.message }));
      throw new AppError('VALIDATION', `The flow definition has ${issues.length} problem${issues.length === 1 ? '' : 's'}; nothing was stored.`, { issues }, { status: 422 });
    }
    const { inputs, steps, output, bindings } = result.definition;
    return { definition: canonicalValue({ inputs, steps, output }), bindings: canonicalValue(bindings) };
  }

  return {
    async create(author, input) {
      const domain = await domainOf(repos, author, input.domainId);
      await requireDomainPermission(repos, author, domain.id, 'edit_automation');
      const stored = await checked(author.orgId, input.definition);
      const now = deps.clock.now();
      const row: Automation = {
        id: newId(),
        orgId: author.orgId,
        domainId: domain.id,
        kind: 'flow',
        name: input.name,
        description: input.description ?? null,
        publishedRevision: input.publish === true ? 1 : null,
        entitledByDefault: true,
        createdBy: author.userId,
        createdAt: now,
        updatedAt: now,
        archivedAt: null,
        archivedRevision: null,
      };
      await writer.submit(async (tx) => {
        await tx.repos.automations.insertAutomation(row);
        await tx.repos.automations.insertFlowVersion({ automationId: row.id, version: 1, ...stored, createdAt: now });
      });
      return view(row);
    },

    async read(author, flowId) {
      const row = await flowOf(author, flowId);
      const latest = await automations.latestFlowVersion(row.id);
      return { ...(await view(row)), definition: latest === undefined ? null : { ...(latest.definition as object), bindings: latest.bindings } };
    },

    async addVersion(author, flowId, input) {
      const row = await flowOf(author, flowId);
      const stored = await checked(author.orgId, input.definition);
      const created = await writer.submit(async (tx) => {
        const { automations } = tx.repos;
        // Before reading the latest version: a concurrent addVersion's commit is then seen (one version each).
        await automations.lockAutomation(row.id);
        const now = deps.clock.now();
        const latest = await automations.latestFlowVersion(row.id);
        const changed = latest === undefined || canonicalJson(latest.definition) !== canonicalJson(stored.definition) || canonicalJson(latest.bindings) !== canonicalJson(stored.bindings);
        const version = changed ? (latest?.version ?? 0) + 1 : latest.version;
        if (changed) await automations.insertFlowVersion({ automationId: row.id, version, ...stored, createdAt: now });
        if (input.publish === true) await automations.setPublishedRevision(row.id, version, now);
        return changed;
      });
      return { ...(await view((await automations.automation(row.id))!)), created };
    },

    async publish(author, flowId, { version }) {
      const row = await flowOf(author, flowId);
      await writer.submit(async (tx) => {
        if ((await tx.repos.automations.flowVersion(row.id, version)) === undefined) {
          throw new AppError('VALIDATION', `Version ${version} of this flow does not exist.`, { issues: [{ path: 'version', message: 'no such version' }] });
        }
        await tx.repos.automations.setPublishedRevision(row.id, version, deps.clock.now());
      });
      return view((await automations.automation(row.id))!);
    },
  };
}
