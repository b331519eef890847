// Owns the failure codes a flow run records on its execution and tool calls (the agent turn engine's names where they overlap).

export const FLOW_FAILURE = Object.freeze({
  /** The stored input does not match the flow's declared `inputs` (a start that bypassed admission). */
  INVALID_INPUT: 'INVALID_INPUT',
  /** The rendered arguments do not match the tool's input schema (the tool layer's code). */
  INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
  /** The step names a tool that is no longer in the organization's catalog, or that flows cannot call. */
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  /** SPEC caller rules 5-6 and 9. */
  CALLER_CREDENTIALS_REQUIRED: 'CALLER_CREDENTIALS_REQUIRED',
  /** SPEC caller rule 10. */
  CALLER_CREDENTIAL_EXPIRED: 'CALLER_CREDENTIAL_EXPIRED',
  /** A sealed grant or connection secret could not be opened (altered, or its master key was removed). */
  CREDENTIAL_UNAVAILABLE: 'CREDENTIAL_UNAVAILABLE',
  /** A non-readonly call was in flight when the service stopped: it may have taken effect, so it is not repeated. */
  INTERRUPTED: 'INTERRUPTED',
  /** The gated call's run approval was rejected: the call was never made. */
  REJECTED: 'REJECTED',
  /** The stored version cannot be read or its templates do not compile (it bypassed validateFlowDefinition). */
  FLOW_DEFINITION_INVALID: 'FLOW_DEFINITION_INVALID',
  /** A tool threw instead of answering, or the engine failed unexpectedly (details go to the log only). */
  TOOL_FAILED: 'TOOL_FAILED',
  FLOW_FAILED: 'FLOW_FAILED',
} as const);

export type FlowFailureCode = (typeof FLOW_FAILURE)[keyof typeof FLOW_FAILURE];

/** A failure the run records: a code for programs, a message for people (never secret material or upstream text). */
export interface RecordedFailure {
  readonly code: string;
  readonly message: string;
}

/** Codes that also raise a `caller_credential.failed` event (SPEC "Agent session stream"). */
export const CALLER_FAILURE_CODES: ReadonlySet<string> = new Set([FLOW_FAILURE.CALLER_CREDENTIALS_REQUIRED, FLOW_FAILURE.CALLER_CREDENTIAL_EXPIRED]);
