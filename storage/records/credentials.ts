// Domain records of credentials: personal API keys, user tokens and console sessions, known only by their secret's hash (storage/repos/credentials.repo.ts).

export interface ApiKey {
  id: string;
  userId: string;
  orgId: string;
  name: string;
  /** SHA-256 of the secret; the secret itself is never stored. */
  keyHash: Buffer;
  /** The last characters of the secret, to tell keys apart in lists. */
  hint: string;
  createdAt: number;
  revokedAt: number | null;
  /** Minute-granular (runtime/auth/authenticator.ts). */
  lastUsedAt: number | null;
}

/** A key as inserted: a new key was never used. */
export type NewApiKey = Omit<ApiKey, 'lastUsedAt'>;

export interface UserToken {
  id: string;
  userId: string;
  orgId: string;
  tokenHash: Buffer;
  createdAt: number;
  expiresAt: number;
}

export interface ConsoleSession {
  id: string;
  userId: string;
  /** null until the person chose an organization at sign-in. */
  orgId: string | null;
  tokenHash: Buffer;
  createdAt: number;
  expiresAt: number;
}
