// Partner platforms: the partner record (grant, quota, template), its `svp_` keys (hashed), apps and templates.
import type { SqliteDatabase } from '../database.js';

export interface PartnerRow {
  id: string;
  name: string;
  suspended: number;
  provisioning_enabled: number;
  quota_total: number;
  quota_used: number;
  template_id: string | null;
  created_at: number;
}

export interface PartnerKeyRow {
  id: string;
  partner_id: string;
  key_hash: Buffer;
  hint: string;
  provisioning_enabled: number;
  created_at: number;
  revoked_at: number | null;
}

export interface PartnerAppRow {
  id: string;
  partner_id: string;
  name: string;
  created_at: number;
}

export interface PartnerTemplateRow {
  id: string;
  partner_id: string;
  ref: string;
  suspended: number;
  /** JSON: the template as declared (agents, flows, domainName). */
  definition: string;
  created_at: number;
}

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
    insertPartner: (row: PartnerRow): void => void s.insertPartner.run(row),
    updatePartner: (row: Pick<PartnerRow, 'id' | 'name' | 'suspended' | 'provisioning_enabled' | 'quota_total' | 'template_id'>): void =>
      void s.updatePartner.run(row),
    partner: (id: string) => s.partner.get(id) as PartnerRow | undefined,
    insertPartnerKey: (row: PartnerKeyRow): void => void s.insertKey.run(row),
    partnerKey: (id: string) => s.keyById.get(id) as PartnerKeyRow | undefined,
    partnerKeyByHash: (hash: Buffer) => s.keyByHash.get(hash) as PartnerKeyRow | undefined,
    partnerKeysOfPartner: (partnerId: string) => s.keysOfPartner.all(partnerId) as PartnerKeyRow[],
    revokePartnerKey: (id: string, now: number): boolean => s.revokeKey.run(now, id).changes > 0,
    insertPartnerApp: (row: PartnerAppRow): void => void s.insertApp.run(row),
    renamePartnerApp: (id: string, name: string): void => void s.renameApp.run(name, id),
    partnerApp: (id: string) => s.app.get(id) as PartnerAppRow | undefined,
    partnerAppsOfPartner: (partnerId: string) => s.appsOfPartner.all(partnerId) as PartnerAppRow[],
    insertPartnerTemplate: (row: PartnerTemplateRow): void => void s.insertTemplate.run(row),
    updatePartnerTemplate: (id: string, definition: string, suspended: boolean): void =>
      void s.updateTemplate.run(suspended ? 1 : 0, definition, id),
    partnerTemplate: (id: string) => s.template.get(id) as PartnerTemplateRow | undefined,
    partnerTemplateByRef: (partnerId: string, ref: string) => s.templateByRef.get(partnerId, ref) as PartnerTemplateRow | undefined,
    partnerTemplatesOfPartner: (partnerId: string) => s.templatesOfPartner.all(partnerId) as PartnerTemplateRow[],
    /** Spends one customer from the durable allowance; false (nothing written) when it is exhausted. */
    spendQuota: (partnerId: string): boolean => s.spendQuota.run(partnerId).changes > 0,
  };
}

export type PartnersRepo = ReturnType<typeof createPartnersRepo>;
