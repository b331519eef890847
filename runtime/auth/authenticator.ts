// Resolves bearer secrets and console cookies to principals; every check sees current state (cached reads drop on any write).
import type { ApiKey } from '../../storage/records/credentials.js';
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { UserPrincipal } from './principal.js';
import { hashSecret, isWellFormed, sameHash, type SecretKind } from './secrets.js';

export interface Authenticator {
  /** An `sv_` personal key whose user is enabled and still a member of the key's organization. */
  apiKey(secret: string): Promise<UserPrincipal | null>;
  /** An unexpired `svu_` token of an enabled user with current membership. */
  userToken(secret: string): Promise<UserPrincipal | null>;
  /** A console session cookie; `orgId` may be null for an account-only session. */
  consoleSession(secret: string): Promise<{ sessionId: string; userId: string; orgId: string | null } | null>;
  /** True when the user exists, is enabled and is a member of the organization now. */
  isActiveMember(userId: string, orgId: string): Promise<boolean>;
}

/** How stale an API key's last_used_at may be: one write a minute per key keeps the key check a read. */
export const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * The hash to look a secret up by, or null when it is not a well-formed secret of that kind. Computed per request
 * (~4 µs): remembering it per secret would keep thousands of raw secrets, revoked ones included, in the heap.
 */
function hashOf(secret: string, kind: SecretKind): Buffer | null {
  return isWellFormed(secret, kind) ? hashSecret(secret) : null;
}

export function createAuthenticator(store: Storage, clock: Clock): Authenticator {
  const { repos } = store;

  /**
   * Records a key's use off the answer's path: the row just read says whether a minute has passed, and the write
   * joins the next group commit. A failed write only loses a "last used" time, so it is not the request's error.
   */
  const touching = new Set<string>();
  const noteUse = (key: Pick<ApiKey, 'id' | 'lastUsedAt'>): void => {
    const now = clock.now();
    if (key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_GRANULARITY_MS) return;
    // A burst of requests before the commit lands submits one write, not one per request.
    if (touching.has(key.id)) return;
    touching.add(key.id);
    store.writer
      .submit(async (tx) => {
        await tx.repos.credentials.touchApiKey(key.id, now, now - LAST_USED_GRANULARITY_MS + 1);
      })
      .catch(() => undefined)
      .finally(() => touching.delete(key.id));
  };

  const isActiveMember = async (userId: string, orgId: string): Promise<boolean> => {
    const user = await repos.tenancy.user(userId);
    return !!user && !user.disabled && (await repos.tenancy.orgRole(orgId, userId)) !== null;
  };

  return {
    isActiveMember,
    async apiKey(secret) {
      // Malformed secrets are refused before any read.
      const hash = hashOf(secret, 'sv_');
      if (hash === null) return null;
      // Revocation, a disabled user, a removed membership and a suspended customer are checked by the same query, served
      // from memory until any write to those tables (storage/read-cache.ts): each takes effect on the next request.
      const row = await repos.credentials.activeApiKeyByHash(hash);
      if (!row || !sameHash(row.keyHash, hash)) return null;
      noteUse(row);
      return { kind: 'user', via: 'api_key', userId: row.userId, orgId: row.orgId, credentialId: row.id };
    },
    async userToken(secret) {
      const hash = hashOf(secret, 'svu_');
      if (hash === null) return null;
      const row = await repos.credentials.userTokenByHash(hash);
      if (!row || !sameHash(row.tokenHash, hash) || row.expiresAt <= clock.now()) return null;
      if (!(await isActiveMember(row.userId, row.orgId))) return null;
      return { kind: 'user', via: 'user_token', userId: row.userId, orgId: row.orgId, credentialId: row.id };
    },
    async consoleSession(secret) {
      const hash = hashOf(secret, 'svs_');
      if (hash === null) return null;
      const row = await repos.credentials.consoleSessionByHash(hash);
      if (!row || !sameHash(row.tokenHash, hash) || row.expiresAt <= clock.now()) return null;
      const user = await repos.tenancy.user(row.userId);
      if (!user || user.disabled) return null;
      return { sessionId: row.id, userId: row.userId, orgId: row.orgId };
    },
  };
}
