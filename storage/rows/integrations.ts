// Row shapes of integrations and connections and their record mappings, shared by both drivers (a codec per engine).
// Row shapes are `type` aliases, not interfaces, so they fit sql.ts's `insert(q, table, row: Record<string, unknown>)`.
import type { Connection, Integration } from '../records/integrations.js';
import type { RowCodec } from '../row-codec.js';

export type IntegrationRow = {
  id: string;
  org_id: string | null;
  name: string;
  description: string;
  /** The integration definition (runtime/manifest/integration.schema.ts): JSON text on SQLite, `json` on PostgreSQL. */
  manifest: unknown;
  /** 0/1 on SQLite, boolean on PostgreSQL. */
  available: number | boolean;
  updated_at: number;
};

export type ConnectionRow = {
  id: string;
  org_id: string;
  domain_id: string | null;
  integration_id: string;
  /** Sealed bytes (BLOB / bytea): never the material in clear. */
  secret_sealed: Buffer | null;
  created_at: number;
  /** Set by a rotation (migration 0190). */
  rotated_at: number | null;
};

/** The integration mappings for one driver's codec (storage/row-codec.ts). */
export const integrationRows = (codec: RowCodec) => ({
  integrationFromRow: (r: IntegrationRow): Integration => ({
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    description: r.description,
    definition: codec.json(r.manifest),
    available: codec.bool(r.available),
    updatedAt: r.updated_at,
  }),
  integrationToRow: (i: Integration): IntegrationRow => ({
    id: i.id,
    org_id: i.orgId,
    name: i.name,
    description: i.description,
    manifest: codec.toJson(i.definition),
    available: codec.toBool(i.available),
    updated_at: i.updatedAt,
  }),
});

export const connectionFromRow = (r: ConnectionRow): Connection => ({
  id: r.id,
  orgId: r.org_id,
  domainId: r.domain_id,
  integrationId: r.integration_id,
  secretSealed: r.secret_sealed,
  createdAt: r.created_at,
  rotatedAt: r.rotated_at ?? null,
});

/** The insert's columns: a new connection was never rotated, so `rotatedAt` is not written. */
export const connectionToRow = (c: Connection): Omit<ConnectionRow, 'rotated_at'> => ({
  id: c.id,
  org_id: c.orgId,
  domain_id: c.domainId,
  integration_id: c.integrationId,
  secret_sealed: c.secretSealed,
  created_at: c.createdAt,
});
