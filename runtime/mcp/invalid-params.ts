// The one MCP failure the runtime raises itself: JSON-RPC -32602 (unknown tool, bad arguments, a foreign cursor).
/*
 * Protocol 2025-06-18 ("Tools" -> "Error Handling") lists unknown tools and invalid arguments as protocol errors;
 * everything that goes wrong once a turn is asked for (permissions, caller credentials, model or tool failures) is
 * a tool result with isError instead, so the calling model can read it.
 */
export class InvalidParamsError extends Error {
  constructor(
    message: string,
    /** Safe to send: paths and rule descriptions, never submitted values. */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'InvalidParamsError';
  }
}
