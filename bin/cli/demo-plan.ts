// Owns when `start` may seed the demo workspace: never a known password into a database that holds someone's data.

export type DemoPlan =
  /** Apply the demo manifest and mint a demo key. */
  | 'seed'
  /** The demo was seeded here by an earlier start: mint a new key, apply nothing (a changed password stays). */
  | 'new-key'
  /** The database holds other data: leave it alone, and say how to get the demo anyway. */
  | 'skip-existing'
  | 'off';

export interface DemoFacts {
  /** `--demo` (true), `--no-demo` (false), or neither. */
  flag: boolean | undefined;
  manifestGiven: boolean;
  /** Nothing was ever applied to the database (checked before `--manifest` is). */
  databaseEmpty: boolean;
  demoSeededEarlier: boolean;
}

export function demoPlan(facts: DemoFacts): DemoPlan {
  if (facts.flag !== undefined) return facts.flag ? 'seed' : 'off';
  if (facts.manifestGiven) return 'off';
  if (facts.databaseEmpty) return 'seed';
  return facts.demoSeededEarlier ? 'new-key' : 'skip-existing';
}
