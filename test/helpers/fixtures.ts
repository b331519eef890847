// Minimal tenants written straight through the repositories, for tests below the manifest layer.
import { hashPassword } from '../../runtime/auth/passwords.js';
import { hashSecret, hintOf, mintSecret } from '../../runtime/auth/secrets.js';
import { newId } from '../../runtime/ids.js';
import type { OrgRole } from '../../storage/repos/tenancy.repo.js';
import type { Storage } from '../../storage/port/storage.js';

export interface SeededUser {
  userId: string;
  orgId: string;
  email: string;
  password: string;
  apiKey: string;
}

export async function seedUser(
  store: Storage,
  options: { orgId?: string; orgName?: string; email?: string; password?: string; orgRole?: OrgRole } = {},
): Promise<SeededUser> {
  const now = Date.now();
  const orgId = options.orgId ?? newId();
  const email = options.email ?? `user-${newId().slice(-8)}@example.test`;
  const password = options.password ?? 'correct horse battery';
  const passwordHash = await hashPassword(password);
  const apiKey = mintSecret('sv_');
  const userId = newId();
  await store.writer.submit(async (tx) => {
    const { tenancy, credentials } = tx.repos;
    if (!(await tenancy.organization(orgId))) {
      await tenancy.insertOrganization({ id: orgId, name: options.orgName ?? 'Org', partnerId: null, clientSegment: null, directLoginDisabled: false, rolloutFlags: {}, createdAt: now, suspendedAt: null });
    }
    await tenancy.insertUser({ id: userId, email, name: email.split('@')[0], passwordHash, disabled: false, createdAt: now });
    await tenancy.setOrgRole(orgId, userId, options.orgRole ?? 'member', now);
    await credentials.insertApiKey({ id: newId(), userId, orgId, name: 'test', keyHash: hashSecret(apiKey), hint: hintOf(apiKey), createdAt: now, revokedAt: null });
  });
  return { userId, orgId, email, password, apiKey };
}
