// Owns authoring agents (SPEC "Authoring"): create, read, PATCH setup, verify and publish through the agent-revision machine.
import type { Automation } from '../../storage/records/automations.js';
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import { AppError, validation } from '../errors.js';
import { newId } from '../ids.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { IntegrationBinding } from '../vault/identity-policy.js';
import { stepAgentRevision } from './agent-revision-steps.js';
import { EMPTY_SETUP, bindingsOf, frozenSetup, isFrozenSetup, setupFromRow, setupRow, type AgentSetup } from './agent-setup.js';
import { domainOf, editableAutomation, requireDomainPermission, type Author } from './authoring-access.js';
import { verifySetup, type Finding, type VerifyReport } from './procedure-verifier.js';

export interface AgentSummary {
  readonly id: string;
  readonly domainId: string;
  readonly name: string;
  readonly description: string | null;
  readonly kind: 'agent' | 'flow';
}

export interface PublishedRevisionView {
  readonly revision: number;
  readonly setup: AgentSetup;
  readonly belt: readonly IntegrationBinding[];
  readonly changeNote: string | null;
  readonly publishedAt: string;
}

export interface AgentDetail extends AgentSummary {
  /** Null for a Flow (flows have versions, not a Setup). */
  readonly setup: AgentSetup | null;
  /** True when the draft Setup differs from the published revision (or nothing was published yet). */
  readonly hasUnpublishedChanges: boolean;
  readonly published: PublishedRevisionView | null;
}

export interface CreateAgentInput {
  readonly domainId: string;
  readonly name: string;
  readonly description?: string | null;
  readonly initialSetup?: Partial<AgentSetup>;
}

export interface PublishResult {
  readonly revision: number;
  readonly belt: readonly IntegrationBinding[];
}

export interface AgentAuthoring {
  create(author: Author, input: CreateAgentInput): Promise<AgentSummary>;
  read(author: Author, automationId: string): Promise<AgentDetail>;
  patchSetup(author: Author, automationId: string, patch: Partial<AgentSetup>): Promise<AgentSetup>;
  verify(author: Author, automationId: string): Promise<VerifyReport>;
  publish(author: Author, automationId: string, changeNote: string | null): Promise<PublishResult>;
}

export interface AgentAuthoringDeps {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
  /** The catalog visible to an organization (global integrations, its own, and the built-ins). */
  catalogFor(orgId: string): Promise<ToolCatalog>;
}

const summaryOf = (row: Automation): AgentSummary => ({
  id: row.id,
  domainId: row.domainId,
  name: row.name,
  description: row.description,
  kind: row.kind,
});

function requireAgent(automation: Automation): void {
  // A Flow has versions of a step graph, not a Setup: the authoring API edits agents only (SPEC "cannot create a Flow").
  if (automation.kind !== 'agent') throw validation('This automation is a Flow; only agents have a Setup.');
}

/** 422 VALIDATION with `details.findings` of `{ message, span }` (plus the finding's kind and proposal). */
function refusal(findings: readonly Finding[]): AppError {
  return new AppError(
    'VALIDATION',
    `The procedure verifier found ${findings.length} problem${findings.length === 1 ? '' : 's'}; nothing was published.`,
    { findings: findings.map((f) => ({ message: f.detail, span: f.span, kind: f.kind, proposal: f.proposal })) },
    { status: 422 },
  );
}

export function createAgentAuthoring(deps: AgentAuthoringDeps): AgentAuthoring {
  const { repos, writer } = deps.store;
  const { automations } = repos;

  return {
    async create(author, input) {
      const domain = await domainOf(repos, author, input.domainId);
      await requireDomainPermission(repos, author, domain.id, 'edit_automation');
      const id = newId();
      const now = deps.clock.now();
      const setup: AgentSetup = { ...EMPTY_SETUP, ...input.initialSetup };
      const row: Automation = {
        id,
        orgId: author.orgId,
        domainId: domain.id,
        kind: 'agent',
        name: input.name,
        description: input.description ?? null,
        publishedRevision: null,
        entitledByDefault: true,
        createdBy: author.userId,
        createdAt: now,
        updatedAt: now,
        archivedAt: null,
        archivedRevision: null,
      };
      await writer.submit(async (tx) => {
        await tx.repos.automations.insertAutomation(row);
        await tx.repos.automations.upsertAgentSetup(setupRow(id, setup, now));
      });
      return summaryOf(row);
    },

    async read(author, automationId) {
      const automation = await editableAutomation(repos, author, automationId);
      if (automation.kind !== 'agent') return { ...summaryOf(automation), setup: null, hasUnpublishedChanges: false, published: null };
      const setup = setupFromRow(await automations.agentSetup(automation.id));
      const row = automation.publishedRevision === null ? undefined : await automations.agentRevision(automation.id, automation.publishedRevision);
      const published: PublishedRevisionView | null =
        row === undefined
          ? null
          : {
              revision: row.revision,
              setup: row.setup as AgentSetup,
              belt: row.belt as IntegrationBinding[],
              changeNote: row.changeNote,
              publishedAt: new Date(row.createdAt).toISOString(),
            };
      return { ...summaryOf(automation), setup, hasUnpublishedChanges: row === undefined || !isFrozenSetup(row.setup, setup), published };
    },

    async patchSetup(author, automationId, patch) {
      return writer.submit(async (tx) => {
        const automation = await editableAutomation(tx.repos, author, automationId);
        requireAgent(automation);
        const setup: AgentSetup = { ...setupFromRow(await tx.repos.automations.agentSetup(automation.id)), ...patch };
        const now = deps.clock.now();
        // The machine keeps the published pointer where it is (Versioning rule 2); only the draft row changes.
        for (const fact of await stepAgentRevision(tx.repos.automations, automation, { type: 'PATCH_SETUP', now })) {
          if (fact.type === 'draft.updated') await tx.repos.automations.upsertAgentSetup(setupRow(automation.id, setup, fact.at));
        }
        return setup;
      });
    },

    async verify(author, automationId) {
      const automation = await editableAutomation(repos, author, automationId);
      requireAgent(automation);
      const setup = setupFromRow(await automations.agentSetup(automation.id));
      return verifySetup(setup, await bindingsOf(automations, automation.id), await deps.catalogFor(author.orgId));
    },

    async publish(author, automationId, changeNote) {
      const catalog = await deps.catalogFor(author.orgId);
      return writer.submit(async (tx) => {
        const automations = tx.repos.automations;
        // First, so every read below sees the revision a concurrent publish of this agent committed (latest + 1).
        await automations.lockAutomation(automationId);
        const automation = await editableAutomation(tx.repos, author, automationId);
        requireAgent(automation);
        // Read inside the unit, so a PATCH committed just before is what gets verified and frozen.
        const setup = setupFromRow(await automations.agentSetup(automation.id));
        const report = verifySetup(setup, await bindingsOf(automations, automation.id), catalog);
        const now = deps.clock.now();
        const findings = report.findings.map((f) => ({ ...f }));
        let result: PublishResult | null = null;
        for (const fact of await stepAgentRevision(automations, automation, { type: 'PUBLISH', now, findings })) {
          if (fact.type === 'publish.refused') throw refusal(report.findings);
          if (fact.type === 'revision.published') {
            await automations.insertAgentRevision({
              automationId: automation.id,
              revision: fact.revision,
              setup: frozenSetup(setup),
              belt: report.plannedBelt,
              changeNote,
              publishedBy: author.userId,
              createdAt: fact.at,
            });
            await automations.setPublishedRevision(automation.id, fact.revision, fact.at);
            result = { revision: fact.revision, belt: report.plannedBelt };
          }
        }
        if (result === null) throw new AppError('INTERNAL', 'The agent-revision machine neither published nor refused.');
        return result;
      });
    },
  };
}
