// Domain record for a sealed service key: a secret the service mints for itself (storage/repos/service-keys.repo.ts).

export interface SealedServiceKey {
  name: string;
  /** runtime/vault/sealed-secret.ts output; opens only with the master key ring and the key's AAD. */
  sealed: Buffer;
  createdAt: number;
  updatedAt: number;
}
