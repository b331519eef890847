// Onboarding a provisioned customer: its domain and the template's agents and flows, applied by the manifest's own code.
import { createHash } from 'node:crypto';
import type { Repositories } from '../../storage/repos/index.js';
import type { ApplyContext, OrganizationIds } from '../manifest/apply-context.js';
import { applyAutomations } from '../manifest/apply-automations.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import { createRefBook } from '../manifest/ref-book.js';
import type { KeyRing } from '../vault/index.js';
import { newId } from '../ids.js';
import type { CustomerRecord, OnboardingStep } from './customer-record.js';
import type { TemplateDefinition } from './template-definition.js';

/** Domain name when neither the request nor the template names one. */
export const DEFAULT_DOMAIN_NAME = 'General';
/** The template's agents and flows all land in the one domain onboarding creates. */
const DOMAIN_REF = 'domain';

export interface ReleasedAutomation {
  automationId: string;
  ref: string;
  kind: 'agent' | 'flow';
  name: string;
  /** Published agent revision or flow version; null when the template does not publish it. */
  revision: number | null;
  entitledByDefault: boolean;
}

/** What the customer was provisioned with: the template and the automations it released into the organization. */
export interface ReleaseDetail {
  template: { id: string; ref: string };
  /** SHA-256 of the template definition applied, so a partner can tell template versions apart. */
  digest: string;
  automations: ReleasedAutomation[];
}

export interface OnboardingResult {
  domain: { id: string; name: string };
  release: ReleaseDetail;
  steps: OnboardingStep[];
}

export const templateDigest = (definition: TemplateDefinition): string =>
  `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;

/**
 * Run inside a unit of work, after the customer record committed. The owner owns the domain and approves in it.
 * Refs are scoped to the organization (`partner-org:<id>`), so re-running onboarding would create nothing twice.
 */
export async function applyOnboarding(
  deps: { repos: Repositories; keyRing: KeyRing },
  record: CustomerRecord,
  input: { domainName: string | undefined; now: number },
): Promise<OnboardingResult> {
  const { repos } = deps;
  const { now } = input;
  const name = input.domainName ?? record.definition.domainName ?? DEFAULT_DOMAIN_NAME;
  const domainId = newId();
  repos.tenancy.insertDomain({ id: domainId, orgId: record.orgId, name, approvalPolicy: { approvers: [record.ownerUserId] }, createdAt: now });
  repos.tenancy.setDomainRole(domainId, record.ownerUserId, 'owner', now);

  const ctx: ApplyContext = { repos, now, keyRing: deps.keyRing, book: createRefBook(repos.tenancy), refs: {} };
  const ids: OrganizationIds = {
    orgId: record.orgId,
    scope: `partner-org:${record.orgId}`,
    users: new Map(),
    domains: new Map([[DOMAIN_REF, domainId]]),
    connections: new Map(),
    automations: new Map(),
    modules: new Map(),
  };
  const { agents, flows } = record.definition;
  await applyAutomations(
    ctx,
    ids,
    { agents: agents.map((agent) => ({ ...agent, domain: DOMAIN_REF })), flows: flows.map((flow) => ({ ...flow, domain: DOMAIN_REF })) },
    0,
  );

  const automations: ReleasedAutomation[] = [...agents, ...flows].map((item) => {
    const row = repos.automations.automation(ids.automations.get(item.ref)!)!;
    return {
      automationId: row.id,
      ref: item.ref,
      kind: row.kind,
      name: row.name,
      revision: row.publishedRevision,
      entitledByDefault: row.entitledByDefault,
    };
  });
  const steps: OnboardingStep[] = [...record.steps, { step: 'domain', status: 'completed' }, { step: 'automations', status: 'completed' }];
  repos.provisioning.updateOnboardingRun({ id: record.runId, status: 'completed', steps, error: null, updatedAt: now });
  return {
    domain: { id: domainId, name },
    release: { template: { id: record.template.id, ref: record.template.ref }, digest: templateDigest(record.definition), automations },
    steps,
  };
}
