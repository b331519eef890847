// Integration catalog (declarative definitions as JSON) and organizations' connections (secret material sealed).
import type { SqliteDatabase } from '../database.js';
import type { Connection, Integration } from '../records/integrations.js';
import { jsonColumn, mapOptional } from '../row-mapping.js';

interface IntegrationRow {
  id: string;
  org_id: string | null;
  name: string;
  description: string;
  /** JSON: the integration definition (runtime/manifest/integration.schema.ts). */
  manifest: string;
  available: number;
  updated_at: number;
}

interface ConnectionRow {
  id: string;
  org_id: string;
  domain_id: string | null;
  integration_id: string;
  secret_sealed: Buffer | null;
  created_at: number;
  /** Set by a rotation (migration 0190). */
  rotated_at: number | null;
}

const integrationFromRow = (r: IntegrationRow): Integration => ({
  id: r.id,
  orgId: r.org_id,
  name: r.name,
  description: r.description,
  definition: jsonColumn(r.manifest),
  available: r.available === 1,
  updatedAt: r.updated_at,
});

const integrationToRow = (i: Integration): IntegrationRow => ({
  id: i.id,
  org_id: i.orgId,
  name: i.name,
  description: i.description,
  manifest: JSON.stringify(i.definition),
  available: i.available ? 1 : 0,
  updated_at: i.updatedAt,
});

/** Exported for the management repo's connection pages (storage-internal). */
export const connectionFromRow = (r: ConnectionRow): Connection => ({
  id: r.id,
  orgId: r.org_id,
  domainId: r.domain_id,
  integrationId: r.integration_id,
  secretSealed: r.secret_sealed,
  createdAt: r.created_at,
  rotatedAt: r.rotated_at ?? null,
});

/** The insert's parameters: a new connection was never rotated, so `rotatedAt` is not written. */
const connectionToRow = (c: Connection): Omit<ConnectionRow, 'rotated_at'> => ({
  id: c.id,
  org_id: c.orgId,
  domain_id: c.domainId,
  integration_id: c.integrationId,
  secret_sealed: c.secretSealed,
  created_at: c.createdAt,
});

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
    upsertIntegration: (integration: Integration): void => void s.upsert.run(integrationToRow(integration)),
    integration: (id: string) => mapOptional(s.byId.get(id), integrationFromRow),
    /** Integrations every organization sees (org_id NULL), available or not. */
    globalIntegrations: () => (s.global.all() as IntegrationRow[]).map(integrationFromRow),
    /** Available integrations an organization may use: global ones and its own. */
    integrationsVisibleTo: (orgId: string): readonly Integration[] => (s.visibleTo.all(orgId) as IntegrationRow[]).map(integrationFromRow),
    insertConnection: (connection: Connection): void => void s.insertConnection.run(connectionToRow(connection)),
    updateConnection: (connection: Pick<Connection, 'id' | 'domainId' | 'integrationId' | 'secretSealed'>): void =>
      void s.updateConnection.run({
        id: connection.id,
        domain_id: connection.domainId,
        integration_id: connection.integrationId,
        secret_sealed: connection.secretSealed,
      }),
    connection: (id: string) => mapOptional(s.connection.get(id), connectionFromRow),
    connectionsOfOrganization: (orgId: string) => (s.connectionsOfOrg.all(orgId) as ConnectionRow[]).map(connectionFromRow),
    connectionsFor: (orgId: string, integrationId: string) => (s.connectionsFor.all(orgId, integrationId) as ConnectionRow[]).map(connectionFromRow),
  };
}

export type IntegrationsRepo = ReturnType<typeof createIntegrationsRepo>;
