// Minimal tenants written straight through the repositories, for tests below the manifest layer.
import { hashPassword } from '../../runtime/auth/passwords.js';
import { hashSecret, hintOf, mintSecret } from '../../runtime/auth/secrets.js';
import { newId } from '../../runtime/ids.js';
import type { OrgRole } from '../../storage/repos/tenancy.repo.js';
import type { Store } from '../../storage/store.js';

export interface SeededUser {
  userId: string;
  orgId: string;
  email: string;
  password: string;
  apiKey: string;
}

export async function seedUser(
  store: Store,
  options: { orgId?: string; orgName?: string; email?: string; password?: string; orgRole?: OrgRole } = {},
): Promise<SeededUser> {
  const now = Date.now();
  const orgId = options.orgId ?? newId();
  const email = options.email ?? `user-${newId().slice(-8)}@example.test`;
  const password = options.password ?? 'correct horse battery';
  const passwordHash = await hashPassword(password);
  const apiKey = mintSecret('sv_');
  const userId = newId();
  store.transaction(() => {
    const { tenancy, credentials } = store.repos;
    if (!tenancy.organization(orgId)) {
      tenancy.insertOrganization({ id: orgId, name: options.orgName ?? 'Org', partnerId: null, clientSegment: null, directLoginDisabled: false, rolloutFlags: {}, createdAt: now, suspendedAt: null });
    }
    tenancy.insertUser({ id: userId, email, name: email.split('@')[0], passwordHash, disabled: false, createdAt: now });
    tenancy.setOrgRole(orgId, userId, options.orgRole ?? 'member', now);
    credentials.insertApiKey({ id: newId(), userId, orgId, name: 'test', keyHash: hashSecret(apiKey), hint: hintOf(apiKey), createdAt: now, revokedAt: null });
  });
  return { userId, orgId, email, password, apiKey };
}
