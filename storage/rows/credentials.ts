// Row shapes of api_keys, user_tokens and console_sessions and their record mappings, shared by both drivers' credentials repos.
// Row shapes are `type` aliases, not interfaces, so they fit sql.ts's `insert(q, table, row: Record<string, unknown>)`.
/*
 * No codec needed: every column is text, an epoch-ms number or a hash's bytes (BLOB on SQLite, bytea on PostgreSQL;
 * both drivers hand back a Buffer).
 */
import type { ApiKey, ConsoleSession, NewApiKey, UserToken } from '../records/credentials.js';

export type ApiKeyRow = {
  id: string;
  user_id: string;
  org_id: string;
  name: string;
  key_hash: Buffer;
  hint: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
};

/** user_tokens and console_sessions share their columns; a console session's organization may still be unchosen. */
export type TokenRow<Org extends string | null> = {
  id: string;
  user_id: string;
  org_id: Org;
  token_hash: Buffer;
  created_at: number;
  expires_at: number;
};

// The key check runs on every `sv_` request but is cached (storage/repos/index.ts): this maps once per fill.
export const apiKeyFromRow = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  userId: r.user_id,
  orgId: r.org_id,
  name: r.name,
  keyHash: r.key_hash,
  hint: r.hint,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
});

/** The insert's columns: a new key was never used, so last_used_at is left to its default (NULL). */
export const apiKeyToRow = (k: NewApiKey): Omit<ApiKeyRow, 'last_used_at'> => ({
  id: k.id,
  user_id: k.userId,
  org_id: k.orgId,
  name: k.name,
  key_hash: k.keyHash,
  hint: k.hint,
  created_at: k.createdAt,
  revoked_at: k.revokedAt,
});

const tokenFromRow = <Org extends string | null>(r: TokenRow<Org>) => ({
  id: r.id,
  userId: r.user_id,
  orgId: r.org_id,
  tokenHash: r.token_hash,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

export const tokenToRow = <Org extends string | null>(t: {
  id: string;
  userId: string;
  orgId: Org;
  tokenHash: Buffer;
  createdAt: number;
  expiresAt: number;
}): TokenRow<Org> => ({
  id: t.id,
  user_id: t.userId,
  org_id: t.orgId,
  token_hash: t.tokenHash,
  created_at: t.createdAt,
  expires_at: t.expiresAt,
});

export const userTokenFromRow = (r: TokenRow<string>): UserToken => tokenFromRow(r);
export const consoleSessionFromRow = (r: TokenRow<string | null>): ConsoleSession => tokenFromRow(r);
