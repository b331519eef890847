// Owns the vault's typed failures; messages name the rule broken and never carry key or credential material.
import { AppError } from '../errors.js';

export type VaultErrorReason =
  /** Master-key configuration is missing or malformed (env, file, generated default). */
  | 'KEY_RING_INVALID'
  /** The grant names a master key that is no longer in the ring (retired after rotation). */
  | 'MASTER_KEY_UNAVAILABLE'
  /** Authentication failed: the ciphertext, tag or wrapped key was altered, or it is opened for another grant, org or execution. */
  | 'GRANT_UNOPENABLE'
  /** Structurally invalid sealed grant (wrong lengths, unknown version), invalid binding, or credentials that fail the schema. */
  | 'GRANT_MALFORMED';

/**
 * None of these is a client mistake, so to the HTTP layer a VaultError is an ordinary INTERNAL AppError;
 * `reason` is for the runtime (e.g. to fail a tool call or log a rotation gap) and for tests.
 */
export class VaultError extends AppError {
  readonly reason: VaultErrorReason;

  constructor(reason: VaultErrorReason, message: string) {
    super('INTERNAL', message);
    this.name = 'VaultError';
    this.reason = reason;
  }
}

export function isVaultError(error: unknown, reason?: VaultErrorReason): error is VaultError {
  return error instanceof VaultError && (reason === undefined || error.reason === reason);
}
