// Owns a key-order-independent JSON encoding, so re-applying a manifest whose keys were reordered changes nothing.

/** JSON.stringify with object keys sorted at every depth (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/** `value` rebuilt with its object keys sorted at every depth: a record field then stores as canonicalJson would. */
export function canonicalValue<T>(value: T): T {
  return JSON.parse(canonicalJson(value)) as T;
}
