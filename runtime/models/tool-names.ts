// Owns the two-way mapping between tool wire ids (`crm.get_contact`) and provider-safe function names.
import { createHash } from 'node:crypto';

/** OpenAI and Anthropic both require function names matching ^[a-zA-Z0-9_-]{1,64}$: no dots. */
const MAX_LENGTH = 64;

export interface ToolNameMap {
  toProvider(wireId: string): string;
  /** Undefined for a name the model invented (not one we sent). */
  toWire(providerName: string): string | undefined;
}

/** `crm.get_contact` -> `crm__get_contact`; anything else outside [A-Za-z0-9_-] -> `_`; long ids keep a hash tail. */
function encode(wireId: string): string {
  const safe = wireId.replaceAll('.', '__').replace(/[^A-Za-z0-9_-]/g, '_') || '_';
  if (safe.length <= MAX_LENGTH) return safe;
  const digest = createHash('sha256').update(wireId).digest('hex').slice(0, 8);
  return `${safe.slice(0, MAX_LENGTH - 9)}_${digest}`;
}

/**
 * Deterministic for a given list (order matters only when two ids encode alike, which suffixes resolve),
 * so the names in earlier assistant messages match the names declared in this step.
 */
export function createToolNameMap(wireIds: Iterable<string>): ToolNameMap {
  const byWire = new Map<string, string>();
  const byProvider = new Map<string, string>();
  const add = (wireId: string) => {
    if (byWire.has(wireId)) return byWire.get(wireId)!;
    let name = encode(wireId);
    for (let n = 2; byProvider.has(name); n += 1) {
      const suffix = `_${n}`;
      name = `${encode(wireId).slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
    }
    byWire.set(wireId, name);
    byProvider.set(name, wireId);
    return name;
  };
  for (const wireId of wireIds) add(wireId);
  return { toProvider: add, toWire: (providerName) => byProvider.get(providerName) };
}
