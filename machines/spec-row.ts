// Row shape of each machine's SPEC_ROWS table: a transition tied to a spec row, or a declared design extension.

interface TableTransition {
  /** State path relative to the machine root, dot-separated for nested states. */
  readonly source: string;
  /** Event type that takes the transition. */
  readonly event: string;
  /** Named guard from the machine's `setup()`; absent when the transition is unguarded. */
  readonly guard?: string;
  /** Target state path; equals `source` for a targetless (stay) transition. */
  readonly target: string;
}

/** A transition that implements a row of spec "States and transitions". */
export interface SpecRowTransition extends TableTransition {
  /** The spec row's first three cells, verbatim, joined by " | ". */
  readonly specRow: string;
  readonly extension?: never;
}

/** A transition the design needs that the spec table does not list. */
export interface ExtensionTransition extends TableTransition {
  /** Why the design needs it. */
  readonly extension: string;
  readonly specRow?: never;
}

export type SpecTableRow = SpecRowTransition | ExtensionTransition;
