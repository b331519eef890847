// Partner platforms, their `svp_` keys, apps and templates on PostgreSQL (storage/repos/partners.repo.ts's functions, async).
import type { Partner, PartnerApp, PartnerKey, PartnerTemplate } from '../../records/partners.js';
import { CREATION_ORDER, insert, json, many, one, run, write, type Queryable } from './sql.js';
import { partnerRows } from '../../rows/partners.js';
import { postgresCodec } from '../../row-codec.js';

const { partnerFromRow, partnerToRow, keyFromRow, keyToRow, appFromRow, appToRow, templateFromRow, templateToRow } = partnerRows(postgresCodec);

export function createPostgresPartnersRepo(q: Queryable) {
  return {
    insertPartner: (partner: Partner): Promise<void> => insert(q, 'partners', partnerToRow(partner)),
    // quota_used is durable spend: never reset by configuration.
    updatePartner: (p: Pick<Partner, 'id' | 'name' | 'suspended' | 'provisioningEnabled' | 'quotaTotal' | 'templateId'>): Promise<void> =>
      write(q, 'UPDATE partners SET name = $1, suspended = $2, provisioning_enabled = $3, quota_total = $4, template_id = $5 WHERE id = $6', [
        p.name, p.suspended, p.provisioningEnabled, p.quotaTotal, p.templateId, p.id,
      ]),
    partner: (id: string) => one(q, 'SELECT * FROM partners WHERE id = $1', [id], partnerFromRow),
    insertPartnerKey: (key: PartnerKey): Promise<void> => insert(q, 'partner_keys', keyToRow(key)),
    partnerKey: (id: string) => one(q, 'SELECT * FROM partner_keys WHERE id = $1', [id], keyFromRow),
    partnerKeyByHash: (hash: Buffer) => one(q, 'SELECT * FROM partner_keys WHERE key_hash = $1', [hash], keyFromRow),
    partnerKeysOfPartner: (partnerId: string) => many(q, `SELECT * FROM partner_keys WHERE partner_id = $1 ${CREATION_ORDER}`, [partnerId], keyFromRow),
    revokePartnerKey: async (id: string, now: number): Promise<boolean> =>
      (await run(q, 'UPDATE partner_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, id])) > 0,
    insertPartnerApp: (app: PartnerApp): Promise<void> => insert(q, 'partner_apps', appToRow(app)),
    renamePartnerApp: (id: string, name: string): Promise<void> => write(q, 'UPDATE partner_apps SET name = $1 WHERE id = $2', [name, id]),
    partnerApp: (id: string) => one(q, 'SELECT * FROM partner_apps WHERE id = $1', [id], appFromRow),
    partnerAppsOfPartner: (partnerId: string) => many(q, `SELECT * FROM partner_apps WHERE partner_id = $1 ${CREATION_ORDER}`, [partnerId], appFromRow),
    insertPartnerTemplate: (template: PartnerTemplate): Promise<void> => insert(q, 'partner_templates', templateToRow(template)),
    /** `definition` is the template as declared (stored as json: key order kept). */
    updatePartnerTemplate: (id: string, definition: unknown, suspended: boolean): Promise<void> =>
      write(q, 'UPDATE partner_templates SET suspended = $1, definition = $2 WHERE id = $3', [suspended, json(definition), id]),
    partnerTemplate: (id: string) => one(q, 'SELECT * FROM partner_templates WHERE id = $1', [id], templateFromRow),
    partnerTemplateByRef: (partnerId: string, ref: string) =>
      one(q, 'SELECT * FROM partner_templates WHERE partner_id = $1 AND ref = $2', [partnerId, ref], templateFromRow),
    partnerTemplatesOfPartner: (partnerId: string) =>
      many(q, `SELECT * FROM partner_templates WHERE partner_id = $1 ${CREATION_ORDER}`, [partnerId], templateFromRow),
    /**
     * Spends one customer from the durable allowance; false (nothing written) when it is exhausted. One statement:
     * a concurrent spender waits on the row lock and re-checks `quota_used < quota_total` on the row it then sees.
     */
    spendQuota: async (partnerId: string): Promise<boolean> =>
      (await run(q, 'UPDATE partners SET quota_used = quota_used + 1 WHERE id = $1 AND quota_used < quota_total', [partnerId])) > 0,
  };
}
