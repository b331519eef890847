// Partner platforms: the partner record (grant, quota, template), its `svp_` keys (hashed), apps and templates.
import type { SqliteDatabase } from '../database.js';
import type { Partner, PartnerApp, PartnerKey, PartnerTemplate } from '../records/partners.js';
import { mapOptional } from '../row-mapping.js';
import { partnerRows, type PartnerKeyRow, type PartnerAppRow, type PartnerTemplateRow } from '../rows/partners.js';
import { sqliteCodec } from '../row-codec.js';

const { partnerFromRow, partnerToRow, keyFromRow, keyToRow, appFromRow, templateFromRow, templateToRow } = partnerRows(sqliteCodec);

export function createPartnersRepo(db: SqliteDatabase) {
  const s = {
    insertPartner: db.prepare(
      `INSERT INTO partners (id, name, suspended, provisioning_enabled, quota_total, quota_used, template_id, created_at)
       VALUES (@id, @name, @suspended, @provisioning_enabled, @quota_total, @quota_used, @template_id, @created_at)`,
    ),
    // quota_used is durable spend: never reset by configuration.
    updatePartner: db.prepare(
      `UPDATE partners SET name = @name, suspended = @suspended, provisioning_enabled = @provisioning_enabled,
         quota_total = @quota_total, template_id = @template_id WHERE id = @id`,
    ),
    partner: db.prepare('SELECT * FROM partners WHERE id = ?'),
    insertKey: db.prepare(
      `INSERT INTO partner_keys (id, partner_id, key_hash, hint, provisioning_enabled, created_at, revoked_at)
       VALUES (@id, @partner_id, @key_hash, @hint, @provisioning_enabled, @created_at, @revoked_at)`,
    ),
    keyById: db.prepare('SELECT * FROM partner_keys WHERE id = ?'),
    keyByHash: db.prepare('SELECT * FROM partner_keys WHERE key_hash = ?'),
    keysOfPartner: db.prepare('SELECT * FROM partner_keys WHERE partner_id = ? ORDER BY created_at, id'),
    revokeKey: db.prepare('UPDATE partner_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    insertApp: db.prepare('INSERT INTO partner_apps (id, partner_id, name, created_at) VALUES (@id, @partner_id, @name, @created_at)'),
    renameApp: db.prepare('UPDATE partner_apps SET name = ? WHERE id = ?'),
    app: db.prepare('SELECT * FROM partner_apps WHERE id = ?'),
    appsOfPartner: db.prepare('SELECT * FROM partner_apps WHERE partner_id = ? ORDER BY created_at, id'),
    insertTemplate: db.prepare(
      `INSERT INTO partner_templates (id, partner_id, ref, suspended, definition, created_at)
       VALUES (@id, @partner_id, @ref, @suspended, @definition, @created_at)`,
    ),
    updateTemplate: db.prepare('UPDATE partner_templates SET suspended = ?, definition = ? WHERE id = ?'),
    template: db.prepare('SELECT * FROM partner_templates WHERE id = ?'),
    templateByRef: db.prepare('SELECT * FROM partner_templates WHERE partner_id = ? AND ref = ?'),
    templatesOfPartner: db.prepare('SELECT * FROM partner_templates WHERE partner_id = ? ORDER BY created_at, id'),
    // The allowance is spent in the transaction that creates the customer, and only while some is left.
    spendQuota: db.prepare('UPDATE partners SET quota_used = quota_used + 1 WHERE id = ? AND quota_used < quota_total'),
  };
  return {
    insertPartner: (partner: Partner): void => void s.insertPartner.run(partnerToRow(partner)),
    updatePartner: (p: Pick<Partner, 'id' | 'name' | 'suspended' | 'provisioningEnabled' | 'quotaTotal' | 'templateId'>): void =>
      void s.updatePartner.run({
        id: p.id,
        name: p.name,
        suspended: p.suspended ? 1 : 0,
        provisioning_enabled: p.provisioningEnabled ? 1 : 0,
        quota_total: p.quotaTotal,
        template_id: p.templateId,
      }),
    partner: (id: string) => mapOptional(s.partner.get(id), partnerFromRow),
    insertPartnerKey: (key: PartnerKey): void => void s.insertKey.run(keyToRow(key)),
    partnerKey: (id: string) => mapOptional(s.keyById.get(id), keyFromRow),
    partnerKeyByHash: (hash: Buffer) => mapOptional(s.keyByHash.get(hash), keyFromRow),
    partnerKeysOfPartner: (partnerId: string) => (s.keysOfPartner.all(partnerId) as PartnerKeyRow[]).map(keyFromRow),
    revokePartnerKey: (id: string, now: number): boolean => s.revokeKey.run(now, id).changes > 0,
    insertPartnerApp: (app: PartnerApp): void =>
      void s.insertApp.run({ id: app.id, partner_id: app.partnerId, name: app.name, created_at: app.createdAt }),
    renamePartnerApp: (id: string, name: string): void => void s.renameApp.run(name, id),
    partnerApp: (id: string) => mapOptional(s.app.get(id), appFromRow),
    partnerAppsOfPartner: (partnerId: string) => (s.appsOfPartner.all(partnerId) as PartnerAppRow[]).map(appFromRow),
    insertPartnerTemplate: (template: PartnerTemplate): void => void s.insertTemplate.run(templateToRow(template)),
    /** `definition` is the template as declared (stored as JSON). */
    updatePartnerTemplate: (id: string, definition: unknown, suspended: boolean): void =>
      void s.updateTemplate.run(suspended ? 1 : 0, JSON.stringify(definition), id),
    partnerTemplate: (id: string) => mapOptional(s.template.get(id), templateFromRow),
    partnerTemplateByRef: (partnerId: string, ref: string) => mapOptional(s.templateByRef.get(partnerId, ref), templateFromRow),
    partnerTemplatesOfPartner: (partnerId: string) => (s.templatesOfPartner.all(partnerId) as PartnerTemplateRow[]).map(templateFromRow),
    /** Spends one customer from the durable allowance; false (nothing written) when it is exhausted. */
    spendQuota: (partnerId: string): boolean => s.spendQuota.run(partnerId).changes > 0,
  };
}

export type PartnersRepo = ReturnType<typeof createPartnersRepo>;
