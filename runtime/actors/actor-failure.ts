// Why an actor's work cannot go on (the recorded reason its owner receives) and the error that carries it.
import { AppError } from '../errors.js';

export type ActorFailureReason =
  /** The row was written by another MACHINE_VERSION of the machine; restoring it as is could misread its state. */
  | { readonly code: 'machine_version_mismatch'; readonly stored: number; readonly current: number }
  /** The row's JSON does not parse or the machine refuses to restore it. */
  | { readonly code: 'snapshot_unreadable'; readonly error: string }
  /** Its owner retired the row (status 'failed'): it is kept as evidence, never rehydrated. */
  | { readonly code: 'retired' };

export interface ActorFailure {
  readonly kind: string;
  readonly id: string;
  /** Clock time the failure was decided. */
  readonly at: number;
  readonly reason: ActorFailureReason;
}

export function describeFailure(reason: ActorFailureReason): string {
  switch (reason.code) {
    case 'machine_version_mismatch':
      return `snapshot written by machine version ${reason.stored}, this build runs version ${reason.current}`;
    case 'snapshot_unreadable':
      return `snapshot cannot be restored: ${reason.error}`;
    case 'retired':
      return 'actor was retired by its owner';
  }
}

/**
 * An INTERNAL AppError: none of these is the client's mistake. The reason stays on `failure` (for logs and
 * the owner) and out of `details`, so the HTTP envelope never carries internals.
 */
export class ActorFailureError extends AppError {
  constructor(readonly failure: ActorFailure) {
    super('INTERNAL', `Actor ${failure.kind}/${failure.id} is unavailable: ${describeFailure(failure.reason)}.`);
    this.name = 'ActorFailureError';
  }
}

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
