// The sealed_service_keys row and its record: one mapping for both drivers.
import type { SealedServiceKey } from '../records/service-keys.js';

export interface SealedServiceKeyRow {
  name: string;
  /** runtime/vault/sealed-secret.ts output; opens only with the master key ring and the row's AAD. */
  sealed: Buffer;
  created_at: number;
  updated_at: number;
}

export const serviceKeyFromRow = (r: SealedServiceKeyRow): SealedServiceKey => ({ name: r.name, sealed: r.sealed, createdAt: r.created_at, updatedAt: r.updated_at });

export const serviceKeyToRow = (k: SealedServiceKey): SealedServiceKeyRow => ({ name: k.name, sealed: k.sealed, created_at: k.createdAt, updated_at: k.updatedAt });
