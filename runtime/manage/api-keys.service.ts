// Owns personal `sv_` keys over the API: create (secret shown once), list, revoke; organization admins see and revoke all.
/*
 * A key acts as its owner in the organization it was created in; revoking it sets revoked_at, which the one-query
 * key check (storage credentials activeApiKeyByHash) reads on every request, so it stops at once. Keys are stored
 * as SHA-256 hashes with a display hint ("sv_…" and the last four characters); the secret exists only in the 201.
 */
import type { ApiKey } from '../../storage/records/credentials.js';
import type { Storage } from '../../storage/port/storage.js';
import { isOrganizationAdmin } from '../authoring/authoring-access.js';
import { hashSecret, hintOf, mintSecret } from '../auth/secrets.js';
import { toIso, type Clock } from '../clock.js';
import { AppError, forbidden, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { byCreation, keysetPage } from '../paging/keyset-page.js';

/** Unrevoked keys one person may hold in one organization. */
export const ACTIVE_KEYS_PER_USER = 50;

export interface ApiKeyView {
  id: string;
  name: string;
  /** "sv_…" and the key's last four characters: enough to recognise it, never to use it. */
  hint: string;
  userId: string;
  createdAt: string;
  /** To the minute (one write a minute per key); null when never used. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface Caller {
  readonly userId: string;
  readonly orgId: string;
}

export interface ApiKeyService {
  create(caller: Caller, input: { name: string }): Promise<{ apiKey: ApiKeyView; secret: string }>;
  listOwn(caller: Caller, page: { limit: number; cursor?: string }): Promise<{ apiKeys: ApiKeyView[]; nextCursor: string | null }>;
  listOrganization(caller: Caller, query: { userId?: string; limit: number; cursor?: string }): Promise<{ apiKeys: ApiKeyView[]; nextCursor: string | null }>;
  revoke(caller: Caller, keyId: string): Promise<void>;
}

export const apiKeyView = (key: ApiKey): ApiKeyView => ({
  id: key.id,
  name: key.name,
  hint: key.hint,
  userId: key.userId,
  createdAt: toIso(key.createdAt),
  lastUsedAt: key.lastUsedAt === null ? null : toIso(key.lastUsedAt),
  revokedAt: key.revokedAt === null ? null : toIso(key.revokedAt),
});

/** Keys page by (createdAt, id), oldest first. */

export function createApiKeyService(deps: { store: Storage; clock: Clock }): ApiKeyService {
  const { store, clock } = deps;
  const { credentials } = store.repos;

  return {
    create(caller, input) {
      return store.writer.submit(async (tx) => {
        // The cap is a count, not a key: concurrent creates of one person (PostgreSQL units in parallel) wait here.
        await tx.repos.tenancy.lockUser(caller.userId);
        const active = (await tx.repos.credentials.apiKeysOfUser(caller.userId, caller.orgId)).filter((k) => k.revokedAt === null).length;
        if (active >= ACTIVE_KEYS_PER_USER) {
          throw new AppError('CONFLICT', `You already hold ${ACTIVE_KEYS_PER_USER} active keys; revoke one first.`, { reason: 'too_many_keys', limit: ACTIVE_KEYS_PER_USER });
        }
        const secret = mintSecret('sv_');
        const row: ApiKey = {
          id: newId(),
          userId: caller.userId,
          orgId: caller.orgId,
          name: input.name,
          keyHash: hashSecret(secret),
          hint: hintOf(secret),
          createdAt: clock.now(),
          revokedAt: null,
          lastUsedAt: null,
        };
        await tx.repos.credentials.insertApiKey(row);
        return { apiKey: apiKeyView(row), secret };
      });
    },

    async listOwn(caller, options) {
      const page = await keysetPage(options.cursor, options.limit, (after, n) => credentials.apiKeysOfUserPage(caller.userId, caller.orgId, after, n), byCreation);
      return { apiKeys: page.rows.map(apiKeyView), nextCursor: page.nextCursor };
    },

    async listOrganization(caller, query) {
      if (!(await isOrganizationAdmin(store.repos, caller))) throw forbidden('Only organization owners and admins see every key.');
      const page = await keysetPage(query.cursor, query.limit, (after, n) => credentials.apiKeysOfOrganizationPage(caller.orgId, query.userId ?? null, after, n), byCreation);
      return { apiKeys: page.rows.map(apiKeyView), nextCursor: page.nextCursor };
    },

    async revoke(caller, keyId) {
      await store.writer.submit(async (tx) => {
        const key = isUuid(keyId) ? await tx.repos.credentials.apiKey(keyId.toLowerCase()) : undefined;
        if (key === undefined || key.orgId !== caller.orgId) throw notFound();
        if (key.userId !== caller.userId && !(await isOrganizationAdmin(tx.repos, caller))) throw forbidden('Only the key\'s owner or an organization owner or admin can revoke it.');
        // Idempotent: revoking a revoked key keeps its first revocation time.
        await tx.repos.credentials.revokeApiKey(key.id, clock.now());
      });
    },
  };
}
