// The MCP endpoint's Origin allow-list (SWITCHYARD_MCP_ALLOWED_ORIGINS), normalized once at startup.

/** `scheme://host[:port]` as browsers serialize an Origin (lower-case, default port dropped); null when not a URL origin. */
export function normalizeOrigin(value: string): string | null {
  try {
    const url = new URL(value.trim());
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
}

/** Throws on an entry that is not an origin, so a typo stops the service at start instead of refusing everyone. */
export function originAllowList(configured: readonly string[]): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const entry of configured) {
    const origin = normalizeOrigin(entry);
    if (origin === null) throw new Error(`SWITCHYARD_MCP_ALLOWED_ORIGINS: "${entry}" is not an origin (scheme://host[:port])`);
    origins.add(origin);
  }
  return origins;
}
