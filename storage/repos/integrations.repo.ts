// Integration catalog (declarative definitions as JSON) and organizations' connections (secret material sealed).
import type { SqliteDatabase } from '../database.js';
import type { Connection, Integration } from '../records/integrations.js';
import { sqliteCodec } from '../row-codec.js';
import { mapOptional } from '../row-mapping.js';
import { connectionFromRow, connectionToRow, integrationRows, type ConnectionRow, type IntegrationRow } from '../rows/integrations.js';

// SQLite reads its 0/1 and JSON text through the codec.
const { integrationFromRow: toIntegration, integrationToRow } = integrationRows(sqliteCodec);

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
    integration: (id: string) => mapOptional(s.byId.get(id), toIntegration),
    /** Integrations every organization sees (org_id NULL), available or not. */
    globalIntegrations: () => (s.global.all() as IntegrationRow[]).map(toIntegration),
    /** Available integrations an organization may use: global ones and its own. */
    integrationsVisibleTo: (orgId: string): readonly Integration[] => (s.visibleTo.all(orgId) as IntegrationRow[]).map(toIntegration),
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
