// Loads uWebSockets.js's native binary for this Node, or says why it cannot: never the package's broken JS fallback.
import { createRequire } from 'node:module';
import type uWSModule from 'uWebSockets.js';

export type Uws = typeof uWSModule;

export type UwsLoad = { ok: true; uws: Uws } | { ok: false; reason: string };

const require = createRequire(import.meta.url);
let cached: UwsLoad | null = null;

/**
 * The package's own entry (`src/uws.js`) silently swaps in a pure-Node implementation when the binary for this
 * platform and ABI is missing (or when UWS_USE_FALLBACK is set), and that implementation dies on the first
 * request (`Not implemented at HttpRequest.forEach`). So we require the binary itself, by the same file name the
 * entry would try, and report failure instead of degrading. UWS_USE_FALLBACK counts as "no native binary".
 */
export function loadNativeUws(env: Record<string, string | undefined> = process.env): UwsLoad {
  if (/^(1|true)$/i.test(env.UWS_USE_FALLBACK ?? '')) return { ok: false, reason: 'UWS_USE_FALLBACK is set; its fallback cannot serve requests' };
  if (cached) return cached;
  const binary = `uWebSockets.js/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    const uws = require(binary) as Uws;
    cached = typeof uws.App === 'function' ? { ok: true, uws } : { ok: false, reason: `${binary} does not export App` };
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    cached = { ok: false, reason: `no uWebSockets.js binary for Node ${process.version} (${process.platform}-${process.arch}, ABI ${process.versions.modules}): ${why}` };
  }
  return cached;
}
