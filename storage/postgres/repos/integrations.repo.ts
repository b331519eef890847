// Integration catalog and organizations' connections on PostgreSQL (storage/repos/integrations.repo.ts's functions, async).
/*
 * manifest is `json` (the definition's text as applied, key order kept); sealed connection material is bytea, sent
 * and read back as Buffers, never in clear.
 */
import type { Connection, Integration } from '../../records/integrations.js';
import { postgresCodec } from '../../row-codec.js';
import { connectionFromRow, connectionToRow, integrationRows } from '../../rows/integrations.js';
import { CREATION_ORDER, insert, many, one, upsert, write, type Queryable } from './sql.js';

const { integrationFromRow: toIntegration, integrationToRow } = integrationRows(postgresCodec);

/** Catalog ids sort in byte order (COLLATE "C"), as SQLite's BINARY, whatever the database's collation. */
const BY_ID = 'ORDER BY id COLLATE "C"';

export function createPostgresIntegrationsRepo(q: Queryable) {
  return {
    upsertIntegration: (integration: Integration): Promise<void> =>
      upsert(q, 'integrations', integrationToRow(integration), '(id)', ['org_id', 'name', 'description', 'manifest', 'available', 'updated_at']),
    integration: (id: string) => one(q, 'SELECT * FROM integrations WHERE id = $1', [id], toIntegration),
    /** Integrations every organization sees (org_id NULL), available or not. */
    globalIntegrations: () => many(q, `SELECT * FROM integrations WHERE org_id IS NULL ${BY_ID}`, [], toIntegration),
    /** Available integrations an organization may use: global ones and its own. */
    integrationsVisibleTo: (orgId: string): Promise<readonly Integration[]> =>
      many(q, `SELECT * FROM integrations WHERE available AND (org_id IS NULL OR org_id = $1) ${BY_ID}`, [orgId], toIntegration),
    insertConnection: (connection: Connection): Promise<void> => insert(q, 'connections', connectionToRow(connection)),
    updateConnection: (connection: Pick<Connection, 'id' | 'domainId' | 'integrationId' | 'secretSealed'>): Promise<void> =>
      write(q, 'UPDATE connections SET domain_id = $1, integration_id = $2, secret_sealed = $3 WHERE id = $4', [
        connection.domainId,
        connection.integrationId,
        connection.secretSealed,
        connection.id,
      ]),
    connection: (id: string) => one(q, 'SELECT * FROM connections WHERE id = $1', [id], connectionFromRow),
    connectionsOfOrganization: (orgId: string) => many(q, `SELECT * FROM connections WHERE org_id = $1 ${CREATION_ORDER}`, [orgId], connectionFromRow),
    connectionsFor: (orgId: string, integrationId: string) =>
      many(q, `SELECT * FROM connections WHERE org_id = $1 AND integration_id = $2 ${CREATION_ORDER}`, [orgId, integrationId], connectionFromRow),
  };
}
