// MCP protocol revisions this endpoint speaks, version negotiation, and what each revision allows on the wire.
/*
 * 2025-06-18 is the revision we implement; 2025-03-26 clients are accepted (same Streamable HTTP transport). A
 * client asking for anything else (older, or newer such as the SDK's 2025-11-25) is offered 2025-06-18 and decides
 * for itself, as the lifecycle section of the spec describes.
 */
export const MCP_PROTOCOL_VERSION = '2025-06-18';
export const MCP_SUPPORTED_VERSIONS: readonly string[] = Object.freeze([MCP_PROTOCOL_VERSION, '2025-03-26']);

export function isSupportedVersion(version: string): boolean {
  return MCP_SUPPORTED_VERSIONS.includes(version);
}

/** The client's requested revision when we speak it, else our latest. */
export function negotiateVersion(requested: string): string {
  return isSupportedVersion(requested) ? requested : MCP_PROTOCOL_VERSION;
}

/** JSON-RPC batches exist in 2025-03-26 only; 2025-06-18 removed them ("Changelog": "Remove support for JSON-RPC batching"). */
export function allowsBatches(version: string): boolean {
  return version === '2025-03-26';
}
