// Owns who may author what (SPEC "Authoring"): other organizations' ids are the uniform 404, missing permission 403.
import type { Repositories } from '../../storage/repos/index.js';
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

export type AuthoringRepos = Pick<Repositories, 'tenancy' | 'automations' | 'knowledge'>;

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

export function hasDomainPermission(repos: AuthoringRepos, author: Author, domainId: string, permission: DomainPermission): boolean {
  const role = repos.tenancy.domainRole(domainId, author.userId);
  return role !== null && PERMISSION_ROLES[permission].has(role);
}

export function isOrganizationAdmin(repos: AuthoringRepos, author: Author): boolean {
  const role = repos.tenancy.orgRole(author.orgId, author.userId);
  return role === 'owner' || role === 'admin';
}

/** A domain of the author's organization (else the uniform 404). */
export function domainOf(repos: AuthoringRepos, author: Author, domainId: string): Domain {
  const domain = isUuid(domainId) ? repos.tenancy.domain(domainId) : undefined;
  if (domain === undefined || domain.orgId !== author.orgId) throw notFound();
  return domain;
}

export function requireDomainPermission(repos: AuthoringRepos, author: Author, domainId: string, permission: DomainPermission): void {
  if (!hasDomainPermission(repos, author, domainId, permission)) throw forbidden(`You need ${permission} in this domain.`);
}

/** An automation of the author's organization the author may edit. */
export function editableAutomation(repos: AuthoringRepos, author: Author, automationId: string, permission: DomainPermission = 'edit_automation'): Automation {
  const automation = isUuid(automationId) ? repos.automations.automation(automationId) : undefined;
  if (automation === undefined || automation.orgId !== author.orgId) throw notFound();
  requireDomainPermission(repos, author, automation.domainId, permission);
  return automation;
}

/**
 * Organization-wide knowledge (org modules, bases without a domain) needs organization Owner/Admin authority;
 * a domain's needs `manage_knowledge` there.
 */
export function requireKnowledgeAuthority(repos: AuthoringRepos, author: Author, domainId: string | null): void {
  if (domainId === null) {
    if (!isOrganizationAdmin(repos, author)) throw forbidden('Organization-wide knowledge needs organization owner or admin authority.');
    return;
  }
  requireDomainPermission(repos, author, domainId, 'manage_knowledge');
}

export function hasKnowledgeAuthority(repos: AuthoringRepos, author: Author, domainId: string | null): boolean {
  return domainId === null ? isOrganizationAdmin(repos, author) : hasDomainPermission(repos, author, domainId, 'manage_knowledge');
}

export function managedModule(repos: AuthoringRepos, author: Author, moduleId: string): KnowledgeModule {
  const module = isUuid(moduleId) ? repos.knowledge.module(moduleId) : undefined;
  if (module === undefined || module.orgId !== author.orgId) throw notFound();
  requireKnowledgeAuthority(repos, author, module.domainId);
  return module;
}

export function managedBase(repos: AuthoringRepos, author: Author, baseId: string): KnowledgeBase {
  const base = isUuid(baseId) ? repos.knowledge.base(baseId) : undefined;
  if (base === undefined || base.orgId !== author.orgId) throw notFound();
  requireKnowledgeAuthority(repos, author, base.domainId);
  return base;
}
