// Personal API keys, user tokens and console sessions on PostgreSQL (storage/repos/credentials.repo.ts's functions, async).
/*
 * Hashes are bytea, sent and read back as Buffers. A duplicate hash surfaces as ConstraintViolationError (sql.ts),
 * which names the constraint but not the bytes.
 */
import type { ConsoleSession, NewApiKey, UserToken } from '../../records/credentials.js';
import type { CreatedCursor } from '../../records/paging.js';
import { apiKeyFromRow, apiKeyToRow, consoleSessionFromRow, tokenToRow, userTokenFromRow } from '../../rows/credentials.js';
import { insert, keysetClause, keysetValues, many, one, run, write, type Queryable } from './sql.js';

export function createPostgresCredentialsRepo(q: Queryable) {
  return {
    insertApiKey: (key: NewApiKey): Promise<void> => insert(q, 'api_keys', apiKeyToRow(key)),
    apiKeyByHash: (hash: Buffer) => one(q, 'SELECT * FROM api_keys WHERE key_hash = $1', [hash], apiKeyFromRow),
    /** The key with that hash if it is unrevoked and its user is enabled and still a member of the key's organization. */
    activeApiKeyByHash: (hash: Buffer) =>
      one(
        q,
        `SELECT k.* FROM api_keys k
           JOIN users u ON u.id = k.user_id AND NOT u.disabled
           JOIN org_memberships m ON m.org_id = k.org_id AND m.user_id = k.user_id AND m.disabled_at IS NULL
           JOIN organizations o ON o.id = k.org_id AND o.suspended_at IS NULL
         WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        [hash],
        apiKeyFromRow,
      ),
    apiKeysOfUser: (userId: string, orgId: string) =>
      many(q, 'SELECT * FROM api_keys WHERE user_id = $1 AND org_id = $2 ORDER BY created_at, id COLLATE "C"', [userId, orgId], apiKeyFromRow),
    revokeApiKey: async (id: string, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0,
    apiKey: (id: string) => one(q, 'SELECT * FROM api_keys WHERE id = $1', [id], apiKeyFromRow),
    /** A user's keys in one organization (revoked ones included), oldest first, after `after`. */
    apiKeysOfUserPage: (userId: string, orgId: string, after: CreatedCursor | null, limit: number) =>
      many(q, `SELECT * FROM api_keys WHERE user_id = $1 AND org_id = $2 AND ${keysetClause(3)}`, [userId, orgId, ...keysetValues(after, limit)], apiKeyFromRow),
    /** Every key of an organization (optionally one user's), oldest first, after `after`. */
    apiKeysOfOrganizationPage: (orgId: string, userId: string | null, after: CreatedCursor | null, limit: number) =>
      many(
        q,
        `SELECT * FROM api_keys WHERE org_id = $1 AND ($2::text IS NULL OR user_id = $2) AND ${keysetClause(3)}`,
        [orgId, userId, ...keysetValues(after, limit)],
        apiKeyFromRow,
      ),
    /** Records a use at `now` unless one at or after `notBefore` is already recorded (one write a minute per key). */
    touchApiKey: async (id: string, now: number, notBefore: number): Promise<boolean> =>
      (await run(q, 'UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)', [now, id, notBefore])) > 0,
    insertUserToken: (token: UserToken): Promise<void> => insert(q, 'user_tokens', tokenToRow(token)),
    userTokenByHash: (hash: Buffer) => one(q, 'SELECT * FROM user_tokens WHERE token_hash = $1', [hash], userTokenFromRow),
    sweepUserTokens: (now: number): Promise<number> => run(q, 'DELETE FROM user_tokens WHERE expires_at <= $1', [now]),
    insertConsoleSession: (session: ConsoleSession): Promise<void> => insert(q, 'console_sessions', tokenToRow(session)),
    consoleSessionByHash: (hash: Buffer) => one(q, 'SELECT * FROM console_sessions WHERE token_hash = $1', [hash], consoleSessionFromRow),
    deleteConsoleSession: (hash: Buffer): Promise<void> => write(q, 'DELETE FROM console_sessions WHERE token_hash = $1', [hash]),
    sweepConsoleSessions: (now: number): Promise<number> => run(q, 'DELETE FROM console_sessions WHERE expires_at <= $1', [now]),
  };
}
