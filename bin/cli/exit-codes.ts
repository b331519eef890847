// Owns the CLI's exit-code convention (README "CLI") and the mapping from an error to its code.
import { CommanderError } from 'commander';
import { isManifestError } from '../../runtime/manifest/manifest-error.js';

export const EXIT = {
  OK: 0,
  /** The command was right but failed while running (database unreadable, port taken, internal error). */
  FAILURE: 1,
  /** The command line or the environment is wrong: unknown command or option, bad or missing value. */
  USAGE: 2,
  /** A workspace manifest was refused (unreadable, bad JSON, or invalid); nothing of it was applied. */
  MANIFEST_REFUSED: 3,
} as const;

/** A mistake in how the CLI was called that commander cannot see (e.g. a bad SWITCHYARD_* variable). */
export class UsageError extends Error {}

export function exitCodeOf(error: unknown): number {
  // Commander's own exits: help and version are 0, every parse error is a usage error.
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  if (error instanceof UsageError) return EXIT.USAGE;
  if (isManifestError(error)) return EXIT.MANIFEST_REFUSED;
  return EXIT.FAILURE;
}
