// Owns the vault's typed failures; messages name the rule broken and never carry key or credential material.

export type VaultErrorCode =
  /** Master-key configuration is missing or malformed (env, file, generated default). */
  | 'KEY_RING_INVALID'
  /** The grant names a master key that is no longer in the ring (retired after rotation). */
  | 'MASTER_KEY_UNAVAILABLE'
  /** Authentication failed: the ciphertext, tag or wrapped key was altered, or it is opened for another grant, org or execution. */
  | 'GRANT_UNOPENABLE'
  /** Structurally invalid sealed grant (wrong lengths, unknown version) or invalid binding input. */
  | 'GRANT_MALFORMED';

export class VaultError extends Error {
  readonly code: VaultErrorCode;

  constructor(code: VaultErrorCode, message: string) {
    super(message);
    this.name = 'VaultError';
    this.code = code;
  }
}

export function isVaultError(error: unknown, code?: VaultErrorCode): error is VaultError {
  return error instanceof VaultError && (code === undefined || error.code === code);
}
