// Owns who may author what (SPEC "Authoring"): other organizations' ids are the uniform 404, missing permission 403.
import type { PortRepositories } from '../../storage/port/storage.js';
import type { Automation } from '../../storage/records/automations.js';
import type { KnowledgeBase, KnowledgeModule } from '../../storage/records/knowledge.js';
import type { Domain, DomainRole } from '../../storage/records/tenancy.js';
import { forbidden, notFound } from '../errors.js';
import { isUuid } from '../ids.js';

/** The person an `sv_` key or `svu_` token acts as; membership was re-read when the credential was checked. */
export interface Author {
  readonly userId: string;
  readonly orgId: string;
}

export type AuthoringRepos = Pick<PortRepositories, 'tenancy' | 'automations' | 'knowledge'>;

/**
 * DESIGN "Domain model": `edit_automation` and `manage_knowledge` are both editor+ in the domain. Organization
 * Owner/Admin status grants neither (as for sessions, SPEC rule 3): it is the authority over organization-wide
 * knowledge only.
 */
const EDITOR_ROLES: ReadonlySet<DomainRole> = new Set(['editor', 'owner']);

export type DomainPermission = 'edit_automation' | 'manage_knowledge';

const PERMISSION_ROLES: Readonly<Record<DomainPermission, ReadonlySet<DomainRole>>> = {
  edit_automation: EDITOR_ROLES,
  manage_knowledge: EDITOR_ROLES,
};

export async function hasDomainPermission(repos: AuthoringRepos, author: Author, domainId: string, permission: DomainPermission): Promise<boolean> {
  const role = await repos.tenancy.domainRole(domainId, author.userId);
  return role !== null && PERMISSION_ROLES[permission].has(role);
}

export async function isOrganizationAdmin(repos: AuthoringRepos, author: Author): Promise<boolean> {
  const role = await repos.tenancy.orgRole(author.orgId, author.userId);
  return role === 'owner' || role === 'admin';
}

/** A domain of the author's organization (else the uniform 404). */
export async function domainOf(repos: AuthoringRepos, author: Author, domainId: string): Promise<Domain> {
  const domain = isUuid(domainId) ? await repos.tenancy.domain(domainId) : undefined;
  if (domain === undefined || domain.orgId !== author.orgId) throw notFound();
  return domain;
}

export async function requireDomainPermission(repos: AuthoringRepos, author: Author, domainId: string, permission: DomainPermission): Promise<void> {
  if (!(await hasDomainPermission(repos, author, domainId, permission))) throw forbidden(`You need ${permission} in this domain.`);
}

/** An automation of the author's organization the author may edit. */
export async function editableAutomation(
  repos: AuthoringRepos,
  author: Author,
  automationId: string,
  permission: DomainPermission = 'edit_automation',
): Promise<Automation> {
  const automation = isUuid(automationId) ? await repos.automations.automation(automationId) : undefined;
  if (automation === undefined || automation.orgId !== author.orgId) throw notFound();
  await requireDomainPermission(repos, author, automation.domainId, permission);
  return automation;
}

/**
 * Organization-wide knowledge (org modules, bases without a domain) needs organization Owner/Admin authority;
 * a domain's needs `manage_knowledge` there.
 */
export async function requireKnowledgeAuthority(repos: AuthoringRepos, author: Author, domainId: string | null): Promise<void> {
  if (domainId === null) {
    if (!(await isOrganizationAdmin(repos, author))) throw forbidden('Organization-wide knowledge needs organization owner or admin authority.');
    return;
  }
  await requireDomainPermission(repos, author, domainId, 'manage_knowledge');
}

export function hasKnowledgeAuthority(repos: AuthoringRepos, author: Author, domainId: string | null): Promise<boolean> {
  return domainId === null ? isOrganizationAdmin(repos, author) : hasDomainPermission(repos, author, domainId, 'manage_knowledge');
}

export async function managedModule(repos: AuthoringRepos, author: Author, moduleId: string): Promise<KnowledgeModule> {
  const module = isUuid(moduleId) ? await repos.knowledge.module(moduleId) : undefined;
  if (module === undefined || module.orgId !== author.orgId) throw notFound();
  await requireKnowledgeAuthority(repos, author, module.domainId);
  return module;
}

export async function managedBase(repos: AuthoringRepos, author: Author, baseId: string): Promise<KnowledgeBase> {
  const base = isUuid(baseId) ? await repos.knowledge.base(baseId) : undefined;
  if (base === undefined || base.orgId !== author.orgId) throw notFound();
  await requireKnowledgeAuthority(repos, author, base.domainId);
  return base;
}
