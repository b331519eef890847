// Owns applying an organization's tenancy: the organization, users (memberships, `sv_` keys) and domains.
import { hashSecret, hintOf, mintSecret } from '../auth/secrets.js';
import { newId } from '../ids.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { passwordKey } from './apply-passwords.js';
import { ManifestError, formatPath } from './manifest-error.js';
import type { OrganizationManifest, UserManifest } from './organization.schema.js';
import { GLOBAL_SCOPE } from './ref-book.js';

export async function applyOrganization(
  ctx: ApplyContext,
  org: OrganizationManifest,
  o: number,
  hashes: Map<string, string | undefined>,
): Promise<OrganizationIds> {
  const { tenancy } = ctx.repos;
  const P = ['organizations', o];
  let orgId = await ctx.book.lookup(GLOBAL_SCOPE, org.ref, 'organization', formatPath(P), async (id) => (await tenancy.organization(id)) !== undefined);
  if (orgId === undefined) {
    orgId = newId();
    await tenancy.insertOrganization({
      id: orgId,
      name: org.name,
      partnerId: null,
      clientSegment: null,
      directLoginDisabled: false,
      rolloutFlags: {},
      createdAt: ctx.now,
      suspendedAt: null,
    });
  } else if ((await tenancy.organization(orgId))!.name !== org.name) {
    await tenancy.renameOrganization(orgId, org.name);
  }
  await ctx.book.remember(GLOBAL_SCOPE, org.ref, 'organization', orgId);
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
  for (const [u, user] of org.users.entries()) await applyUser(ctx, ids, user, [...P, 'users', u], hashes.get(passwordKey(o, u)));
  for (const [d, domain] of org.domains.entries()) {
    const path = formatPath([...P, 'domains', d]);
    let domainId = await ctx.book.lookup(ids.scope, domain.ref, 'domain', path, async (id) => (await tenancy.domain(id))?.orgId === orgId);
    const policy = domain.approvalPolicy ? { approvers: domain.approvalPolicy.approvers.map((ref) => ids.users.get(ref)!) } : {};
    if (domainId === undefined) {
      domainId = newId();
      await tenancy.insertDomain({ id: domainId, orgId: orgId, name: domain.name, approvalPolicy: policy, createdAt: ctx.now });
    } else {
      const row = (await tenancy.domain(domainId))!;
      if (row.name !== domain.name || JSON.stringify(row.approvalPolicy) !== JSON.stringify(policy)) await tenancy.updateDomain(domainId, domain.name, policy);
    }
    await ctx.book.remember(ids.scope, domain.ref, 'domain', domainId);
    ctx.refs[domain.ref] = domainId;
    ids.domains.set(domain.ref, domainId);
    // Additive: access is granted here and withdrawn in the product, never by leaving someone out of a file.
    for (const member of domain.members) {
      const userId = ids.users.get(member.user)!;
      if ((await tenancy.domainRole(domainId, userId)) !== member.role) await tenancy.setDomainRole(domainId, userId, member.role, ctx.now);
    }
  }
  return ids;
}

async function applyUser(ctx: ApplyContext, ids: OrganizationIds, user: UserManifest, P: Array<string | number>, hash: string | undefined): Promise<void> {
  const { tenancy, credentials } = ctx.repos;
  const appliedId = await ctx.book.lookup(ids.scope, user.ref, 'user', formatPath(P), async (id) => (await tenancy.user(id)) !== undefined);
  // A person already known by email (another organization, or an earlier manifest) is the same user.
  const row = appliedId !== undefined ? await tenancy.user(appliedId) : await tenancy.userByEmail(user.email);
  let userId: string;
  if (row === undefined) {
    userId = newId();
    await tenancy.insertUser({ id: userId, email: user.email, name: user.name, passwordHash: hash ?? null, disabled: user.disabled, createdAt: ctx.now });
  } else {
    userId = row.id;
    if (row.email.toLowerCase() !== user.email.toLowerCase()) {
      throw new ManifestError([{ path: formatPath([...P, 'email']), message: `user "${user.ref}" was applied with another email; an email cannot change by manifest` }]);
    }
    const passwordHash = hash ?? row.passwordHash;
    if (row.name !== user.name || row.passwordHash !== passwordHash) await tenancy.updateUser({ id: userId, name: user.name, passwordHash: passwordHash });
    if (row.disabled !== user.disabled) await tenancy.setUserDisabled(userId, user.disabled);
  }
  await ctx.book.remember(ids.scope, user.ref, 'user', userId);
  ctx.refs[user.ref] = userId;
  ids.users.set(user.ref, userId);
  if ((await tenancy.orgRole(ids.orgId, userId)) !== user.orgRole) await tenancy.setOrgRole(ids.orgId, userId, user.orgRole, ctx.now);

  for (const [k, keyRef] of user.apiKeys.entries()) {
    const owned = async (id: string) => (await credentials.apiKeysOfUser(userId, ids.orgId)).some((key) => key.id === id);
    const keyId = await ctx.book.lookup(ids.scope, keyRef, 'api_key', formatPath([...P, 'apiKeys', k]), owned);
    if (keyId !== undefined) {
      // Printed once only: a later apply shows the key's id, never the secret again (only its hash exists).
      ctx.refs[keyRef] = keyId;
      continue;
    }
    const secret = mintSecret('sv_');
    const id = newId();
    await credentials.insertApiKey({ id, userId, orgId: ids.orgId, name: keyRef, keyHash: hashSecret(secret), hint: hintOf(secret), createdAt: ctx.now, revokedAt: null });
    await ctx.book.remember(ids.scope, keyRef, 'api_key', id);
    ctx.refs[keyRef] = secret;
  }
}
