// Integration catalog (declarative definitions as JSON) and organizations' connections (secret material sealed).
import type { SqliteDatabase } from '../database.js';

export interface IntegrationRow {
  id: string;
  /** NULL: visible to every organization; otherwise private to that organization. */
  org_id: string | null;
  name: string;
  description: string;
  /** JSON: the integration definition (runtime/manifest/integration.schema.ts). */
  manifest: string;
  available: number;
  updated_at: number;
}

export interface ConnectionRow {
  id: string;
  org_id: string;
  domain_id: string | null;
  integration_id: string;
  /** runtime/vault/sealed-secret.ts output; never the material in clear. */
  secret_sealed: Buffer | null;
  created_at: number;
}

export function createIntegrationsRepo(db: SqliteDatabase) {
  const s = {
    upsert: db.prepare(
      `INSERT INTO integrations (id, org_id, name, description, manifest, available, updated_at)
       VALUES (@id, @org_id, @name, @description, @manifest, @available, @updated_at)
       ON CONFLICT (id) DO UPDATE SET org_id = excluded.org_id, name = excluded.name, description = excluded.description,
         manifest = excluded.manifest, available = excluded.available, updated_at = excluded.updated_at`,
    ),
    byId: db.prepare('SELECT * FROM integrations WHERE id = ?'),
    global: db.prepare('SELECT * FROM integrations WHERE org_id IS NULL ORDER BY id'),
    visibleTo: db.prepare('SELECT * FROM integrations WHERE available = 1 AND (org_id IS NULL OR org_id = ?) ORDER BY id'),
    insertConnection: db.prepare(
      `INSERT INTO connections (id, org_id, domain_id, integration_id, secret_sealed, created_at)
       VALUES (@id, @org_id, @domain_id, @integration_id, @secret_sealed, @created_at)`,
    ),
    updateConnection: db.prepare(
      'UPDATE connections SET domain_id = @domain_id, integration_id = @integration_id, secret_sealed = @secret_sealed WHERE id = @id',
    ),
    connection: db.prepare('SELECT * FROM connections WHERE id = ?'),
    connectionsOfOrg: db.prepare('SELECT * FROM connections WHERE org_id = ? ORDER BY created_at, id'),
    connectionsFor: db.prepare('SELECT * FROM connections WHERE org_id = ? AND integration_id = ? ORDER BY created_at, id'),
  };
  return {
    upsertIntegration: (row: IntegrationRow): void => void s.upsert.run(row),
    integration: (id: string) => s.byId.get(id) as IntegrationRow | undefined,
    /** Integrations every organization sees (org_id NULL), available or not. */
    globalIntegrations: () => s.global.all() as IntegrationRow[],
    /** Available integrations an organization may use: global ones and its own. */
    integrationsVisibleTo: (orgId: string) => s.visibleTo.all(orgId) as IntegrationRow[],
    insertConnection: (row: ConnectionRow): void => void s.insertConnection.run(row),
    updateConnection: (row: Pick<ConnectionRow, 'id' | 'domain_id' | 'integration_id' | 'secret_sealed'>): void =>
      void s.updateConnection.run(row),
    connection: (id: string) => s.connection.get(id) as ConnectionRow | undefined,
    connectionsOfOrganization: (orgId: string) => s.connectionsOfOrg.all(orgId) as ConnectionRow[],
    connectionsFor: (orgId: string, integrationId: string) => s.connectionsFor.all(orgId, integrationId) as ConnectionRow[],
  };
}

export type IntegrationsRepo = ReturnType<typeof createIntegrationsRepo>;
