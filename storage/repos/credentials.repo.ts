// Personal API keys, user tokens and console sessions, looked up by the SHA-256 of the secret.
import type { SqliteDatabase } from '../database.js';
import type { ConsoleSession, NewApiKey, UserToken } from '../records/credentials.js';
import type { CreatedCursor } from '../records/paging.js';
import { keysetAfter, keysetAfterParams } from './keyset.js';
import { mapOptional } from '../row-mapping.js';
import { apiKeyFromRow, apiKeyToRow, consoleSessionFromRow, tokenToRow, userTokenFromRow, type ApiKeyRow } from '../rows/credentials.js';

export function createCredentialsRepo(db: SqliteDatabase) {
  const s = {
    insertKey: db.prepare(
      `INSERT INTO api_keys (id, user_id, org_id, name, key_hash, hint, created_at, revoked_at)
       VALUES (@id, @user_id, @org_id, @name, @key_hash, @hint, @created_at, @revoked_at)`,
    ),
    keyByHash: db.prepare('SELECT * FROM api_keys WHERE key_hash = ?'),
    // Every `sv_` request authenticates: one indexed join instead of key, user and membership lookups in turn.
    activeKeyByHash: db.prepare(
      `SELECT k.* FROM api_keys k
         JOIN users u ON u.id = k.user_id AND u.disabled = 0
         JOIN org_memberships m ON m.org_id = k.org_id AND m.user_id = k.user_id AND m.disabled_at IS NULL
         JOIN organizations o ON o.id = k.org_id AND o.suspended_at IS NULL
       WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    ),
    keysOfUser: db.prepare('SELECT * FROM api_keys WHERE user_id = ? AND org_id = ? ORDER BY created_at'),
    keyById: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
    keysOfUserPage: db.prepare(
`SELECT * FROM api_keys WHERE user_id = @user AND org_id = @org AND ${keysetAfter()}`,
    ),
    keysOfOrgPage: db.prepare(
`SELECT * FROM api_keys WHERE org_id = @org AND (@user IS NULL OR user_id = @user) AND ${keysetAfter()}`,
    ),
    touchKey: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)'),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    insertToken: db.prepare(
      `INSERT INTO user_tokens (id, user_id, org_id, token_hash, created_at, expires_at)
       VALUES (@id, @user_id, @org_id, @token_hash, @created_at, @expires_at)`,
    ),
    tokenByHash: db.prepare('SELECT * FROM user_tokens WHERE token_hash = ?'),
    sweepTokens: db.prepare('DELETE FROM user_tokens WHERE expires_at <= ?'),
    insertConsole: db.prepare(
      `INSERT INTO console_sessions (id, user_id, org_id, token_hash, created_at, expires_at)
       VALUES (@id, @user_id, @org_id, @token_hash, @created_at, @expires_at)`,
    ),
    consoleByHash: db.prepare('SELECT * FROM console_sessions WHERE token_hash = ?'),
    deleteConsole: db.prepare('DELETE FROM console_sessions WHERE token_hash = ?'),
    sweepConsole: db.prepare('DELETE FROM console_sessions WHERE expires_at <= ?'),
  };
  return {
    insertApiKey: (key: NewApiKey): void => void s.insertKey.run(apiKeyToRow(key)),
    apiKeyByHash: (hash: Buffer) => mapOptional(s.keyByHash.get(hash), apiKeyFromRow),
    /** The key with that hash if it is unrevoked and its user is enabled and still a member of the key's organization. */
    activeApiKeyByHash: (hash: Buffer) => mapOptional(s.activeKeyByHash.get(hash), apiKeyFromRow),
    apiKeysOfUser: (userId: string, orgId: string) => (s.keysOfUser.all(userId, orgId) as ApiKeyRow[]).map(apiKeyFromRow),
    revokeApiKey: (id: string, now: number): boolean => s.revokeKey.run(now, id).changes > 0,
    apiKey: (id: string) => mapOptional(s.keyById.get(id), apiKeyFromRow),
    /** A user's keys in one organization (revoked ones included), oldest first, after `after`. */
    apiKeysOfUserPage: (userId: string, orgId: string, after: CreatedCursor | null, limit: number) =>
      (s.keysOfUserPage.all({ user: userId, org: orgId, ...keysetAfterParams(after, limit) }) as ApiKeyRow[]).map(apiKeyFromRow),
    /** Every key of an organization (optionally one user's), oldest first, after `after`. */
    apiKeysOfOrganizationPage: (orgId: string, userId: string | null, after: CreatedCursor | null, limit: number) =>
      (s.keysOfOrgPage.all({ org: orgId, user: userId, ...keysetAfterParams(after, limit) }) as ApiKeyRow[]).map(apiKeyFromRow),
    /** Records a use at `now` unless one at or after `notBefore` is already recorded (one write a minute per key). */
    touchApiKey: (id: string, now: number, notBefore: number): boolean => s.touchKey.run(now, id, notBefore).changes > 0,
    insertUserToken: (token: UserToken): void => void s.insertToken.run(tokenToRow(token)),
    userTokenByHash: (hash: Buffer) => mapOptional(s.tokenByHash.get(hash), userTokenFromRow),
    sweepUserTokens: (now: number): number => s.sweepTokens.run(now).changes,
    insertConsoleSession: (session: ConsoleSession): void => void s.insertConsole.run(tokenToRow(session)),
    consoleSessionByHash: (hash: Buffer) => mapOptional(s.consoleByHash.get(hash), consoleSessionFromRow),
    deleteConsoleSession: (hash: Buffer): void => void s.deleteConsole.run(hash),
    sweepConsoleSessions: (now: number): number => s.sweepConsole.run(now).changes,
  };
}

export type CredentialsRepo = ReturnType<typeof createCredentialsRepo>;
