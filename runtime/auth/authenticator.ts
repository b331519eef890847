// Resolves bearer secrets and console cookies to principals; every check rereads current state.
import type { Store } from '../../storage/store.js';
import type { Clock } from '../clock.js';
import type { UserPrincipal } from './principal.js';
import { hashSecret, isWellFormed, sameHash } from './secrets.js';

export interface Authenticator {
  /** An `sv_` personal key whose user is enabled and still a member of the key's organization. */
  apiKey(secret: string): UserPrincipal | null;
  /** An unexpired `svu_` token of an enabled user with current membership. */
  userToken(secret: string): UserPrincipal | null;
  /** A console session cookie; `orgId` may be null for an account-only session. */
  consoleSession(secret: string): { sessionId: string; userId: string; orgId: string | null } | null;
  /** True when the user exists, is enabled and is a member of the organization now. */
  isActiveMember(userId: string, orgId: string): boolean;
}

export function createAuthenticator(store: Store, clock: Clock): Authenticator {
  const { credentials, tenancy } = store.repos;

  const isActiveMember = (userId: string, orgId: string): boolean => {
    const user = tenancy.user(userId);
    return !!user && user.disabled === 0 && tenancy.orgRole(orgId, userId) !== null;
  };

  return {
    isActiveMember,
    apiKey(secret) {
      if (!isWellFormed(secret, 'sv_')) return null;
      const hash = hashSecret(secret);
      // Revocation, a disabled user and a removed membership are checked by the same query, read per request (no cache).
      const row = credentials.activeApiKeyByHash(hash);
      if (!row || !sameHash(row.key_hash, hash)) return null;
      return { kind: 'user', via: 'api_key', userId: row.user_id, orgId: row.org_id, credentialId: row.id };
    },
    userToken(secret) {
      if (!isWellFormed(secret, 'svu_')) return null;
      const hash = hashSecret(secret);
      const row = credentials.userTokenByHash(hash);
      if (!row || !sameHash(row.token_hash, hash) || row.expires_at <= clock.now()) return null;
      if (!isActiveMember(row.user_id, row.org_id)) return null;
      return { kind: 'user', via: 'user_token', userId: row.user_id, orgId: row.org_id, credentialId: row.id };
    },
    consoleSession(secret) {
      if (!isWellFormed(secret, 'svs_')) return null;
      const hash = hashSecret(secret);
      const row = credentials.consoleSessionByHash(hash);
      if (!row || !sameHash(row.token_hash, hash) || row.expires_at <= clock.now()) return null;
      const user = tenancy.user(row.user_id);
      if (!user || user.disabled !== 0) return null;
      return { sessionId: row.id, userId: row.user_id, orgId: row.org_id };
    },
  };
}
