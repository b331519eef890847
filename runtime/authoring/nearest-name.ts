// Owns "did you mean": the nearest real name to a misspelled one by Levenshtein edit distance.

/**
 * Edit distance between `a` and `b`, or `limit + 1` as soon as it must exceed `limit` (two rolling rows; the
 * early exit keeps a catalog of thousands of tools cheap to scan).
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = current[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (current[j] < rowMin) rowMin = current[j];
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length];
}

/** How far a proposal may be from what was written: a third of its length, at least 2 edits. */
export const proposalLimit = (written: string): number => Math.max(2, Math.floor(written.length / 3));

/**
 * The candidate closest to `written` (case-insensitive), or null when none is within proposalLimit. Ties go to
 * a candidate sharing the written integration prefix, then to the alphabetically first.
 */
export function nearestName(written: string, candidates: Iterable<string>): string | null {
  const target = written.toLowerCase();
  const prefix = target.slice(0, target.indexOf('.') + 1);
  let best: { name: string; distance: number; samePrefix: boolean } | null = null;
  let limit = proposalLimit(written);
  for (const name of candidates) {
    const distance = editDistance(target, name.toLowerCase(), limit);
    if (distance > limit) continue;
    const samePrefix = prefix !== '' && name.toLowerCase().startsWith(prefix);
    const better =
      best === null ||
      distance < best.distance ||
      (distance === best.distance && samePrefix && !best.samePrefix) ||
      (distance === best.distance && samePrefix === best.samePrefix && name < best.name);
    if (better) {
      best = { name, distance, samePrefix };
      limit = distance;
    }
  }
  return best?.name ?? null;
}
