// Domain records of the integration catalog and organizations' connections (storage/repos/integrations.repo.ts).

export interface Integration {
  id: string;
  /** null: visible to every organization; otherwise private to that organization. */
  orgId: string | null;
  name: string;
  description: string;
  /**
   * The integration definition (runtime/manifest/integration.schema.ts), parsed; validated when it was applied.
   * `undefined` when the stored text no longer parses.
   */
  definition: unknown;
  available: boolean;
  updatedAt: number;
}

export interface Connection {
  id: string;
  orgId: string;
  domainId: string | null;
  integrationId: string;
  /** runtime/vault/sealed-secret.ts output; never the material in clear. null: not connected to an account yet. */
  secretSealed: Buffer | null;
  createdAt: number;
  /** When its material was last rotated; ignored on insert (a new connection was never rotated). */
  rotatedAt: number | null;
}
