// Owns what every step of a manifest apply shares: repositories, one timestamp, the key ring, the ref book, the refs out.
import type { PortRepositories } from '../../storage/port/storage.js';
import type { KeyRing } from '../vault/key-ring.js';
import type { RefBook } from './ref-book.js';

export interface ApplyContext {
  /** The unit's repositories (`tx.repos`): the whole apply is one unit of work. */
  readonly repos: PortRepositories;
  /** One timestamp for the whole apply: every row it writes carries the same time. */
  readonly now: number;
  readonly keyRing: KeyRing;
  readonly book: RefBook;
  /** The output: ref -> id, or a key's secret when that key was created by this apply. */
  readonly refs: Record<string, string>;
}

/** The ids an organization's later sections refer to, by ref. */
export interface OrganizationIds {
  readonly orgId: string;
  /** manifest_refs scope of everything inside the organization: its ref. */
  readonly scope: string;
  readonly users: Map<string, string>;
  readonly domains: Map<string, string>;
  readonly connections: Map<string, string>;
  readonly automations: Map<string, string>;
  readonly modules: Map<string, string>;
}
