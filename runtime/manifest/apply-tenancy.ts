// Owns applying an organization's tenancy: the organization, users (memberships, `sv_` keys) and domains.
import { hashSecret, hintOf, mintSecret } from '../auth/secrets.js';
import { newId } from '../ids.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { passwordKey } from './apply-passwords.js';
import { ManifestError, formatPath } from './manifest-error.js';
import type { OrganizationManifest, UserManifest } from './organization.schema.js';
import { GLOBAL_SCOPE } from './ref-book.js';

export function applyOrganization(ctx: ApplyContext, org: OrganizationManifest, o: number, hashes: Map<string, string | undefined>): OrganizationIds {
  const { tenancy } = ctx.repos;
  const P = ['organizations', o];
  let orgId = ctx.book.lookup(GLOBAL_SCOPE, org.ref, 'organization', formatPath(P), (id) => tenancy.organization(id) !== undefined);
  if (orgId === undefined) {
    orgId = newId();
    tenancy.insertOrganization({
      id: orgId,
      name: org.name,
      partnerId: null,
      clientSegment: null,
      directLoginDisabled: false,
      rolloutFlags: {},
      createdAt: ctx.now,
      suspendedAt: null,
    });
  } else if (tenancy.organization(orgId)!.name !== org.name) {
    tenancy.renameOrganization(orgId, org.name);
  }
  ctx.book.remember(GLOBAL_SCOPE, org.ref, 'organization', orgId);
  ctx.refs[org.ref] = orgId;

  const ids: OrganizationIds = {
    orgId,
    scope: org.ref,
    users: new Map(),
    domains: new Map(),
    connections: new Map(),
    automations: new Map(),
    modules: new Map(),
  };
  org.users.forEach((user, u) => applyUser(ctx, ids, user, [...P, 'users', u], hashes.get(passwordKey(o, u))));
  org.domains.forEach((domain, d) => {
    const path = formatPath([...P, 'domains', d]);
    let domainId = ctx.book.lookup(ids.scope, domain.ref, 'domain', path, (id) => tenancy.domain(id)?.orgId === orgId);
    const policy = domain.approvalPolicy ? { approvers: domain.approvalPolicy.approvers.map((ref) => ids.users.get(ref)!) } : {};
    if (domainId === undefined) {
      domainId = newId();
      tenancy.insertDomain({ id: domainId, orgId: orgId, name: domain.name, approvalPolicy: policy, createdAt: ctx.now });
    } else {
      const row = tenancy.domain(domainId)!;
      if (row.name !== domain.name || JSON.stringify(row.approvalPolicy) !== JSON.stringify(policy)) tenancy.updateDomain(domainId, domain.name, policy);
    }
    ctx.book.remember(ids.scope, domain.ref, 'domain', domainId);
    ctx.refs[domain.ref] = domainId;
    ids.domains.set(domain.ref, domainId);
    // Additive: access is granted here and withdrawn in the product, never by leaving someone out of a file.
    for (const member of domain.members) {
      const userId = ids.users.get(member.user)!;
      if (tenancy.domainRole(domainId, userId) !== member.role) tenancy.setDomainRole(domainId, userId, member.role, ctx.now);
    }
  });
  return ids;
}

function applyUser(ctx: ApplyContext, ids: OrganizationIds, user: UserManifest, P: Array<string | number>, hash: string | undefined): void {
  const { tenancy, credentials } = ctx.repos;
  const appliedId = ctx.book.lookup(ids.scope, user.ref, 'user', formatPath(P), (id) => tenancy.user(id) !== undefined);
  // A person already known by email (another organization, or an earlier manifest) is the same user.
  const row = appliedId !== undefined ? tenancy.user(appliedId) : tenancy.userByEmail(user.email);
  let userId: string;
  if (row === undefined) {
    userId = newId();
    tenancy.insertUser({ id: userId, email: user.email, name: user.name, passwordHash: hash ?? null, disabled: user.disabled, createdAt: ctx.now });
  } else {
    userId = row.id;
    if (row.email.toLowerCase() !== user.email.toLowerCase()) {
      throw new ManifestError([{ path: formatPath([...P, 'email']), message: `user "${user.ref}" was applied with another email; an email cannot change by manifest` }]);
    }
    const passwordHash = hash ?? row.passwordHash;
    if (row.name !== user.name || row.passwordHash !== passwordHash) tenancy.updateUser({ id: userId, name: user.name, passwordHash: passwordHash });
    if (row.disabled !== user.disabled) tenancy.setUserDisabled(userId, user.disabled);
  }
  ctx.book.remember(ids.scope, user.ref, 'user', userId);
  ctx.refs[user.ref] = userId;
  ids.users.set(user.ref, userId);
  if (tenancy.orgRole(ids.orgId, userId) !== user.orgRole) tenancy.setOrgRole(ids.orgId, userId, user.orgRole, ctx.now);

  user.apiKeys.forEach((keyRef, k) => {
    const owned = (id: string) => credentials.apiKeysOfUser(userId, ids.orgId).some((key) => key.id === id);
    const keyId = ctx.book.lookup(ids.scope, keyRef, 'api_key', formatPath([...P, 'apiKeys', k]), owned);
    if (keyId !== undefined) {
      // Printed once only: a later apply shows the key's id, never the secret again (only its hash exists).
      ctx.refs[keyRef] = keyId;
      return;
    }
    const secret = mintSecret('sv_');
    const id = newId();
    credentials.insertApiKey({ id, userId, orgId: ids.orgId, name: keyRef, keyHash: hashSecret(secret), hint: hintOf(secret), createdAt: ctx.now, revokedAt: null });
    ctx.book.remember(ids.scope, keyRef, 'api_key', id);
    ctx.refs[keyRef] = secret;
  });
}
