// The partners, partner_keys, partner_apps and partner_templates rows and their records: one mapping for both drivers.
import type { Partner, PartnerApp, PartnerKey, PartnerTemplate } from '../records/partners.js';
import type { RowCodec } from '../row-codec.js';

export interface PartnerRow {
  id: string;
  name: string;
  suspended: number | boolean;
  provisioning_enabled: number | boolean;
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
  provisioning_enabled: number | boolean;
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
  suspended: number | boolean;
  /** JSON: the template as declared (agents, flows, domainName). */
  definition: unknown;
  created_at: number;
}

/** The mappings for one driver's codec (storage/row-codec.ts). */
export function partnerRows(codec: RowCodec) {
  return {
    partnerFromRow: (r: PartnerRow): Partner => ({
      id: r.id,
      name: r.name,
      suspended: codec.bool(r.suspended),
      provisioningEnabled: codec.bool(r.provisioning_enabled),
      quotaTotal: r.quota_total,
      quotaUsed: r.quota_used,
      templateId: r.template_id,
      createdAt: r.created_at,
    }),

    partnerToRow: (p: Partner): PartnerRow => ({
      id: p.id,
      name: p.name,
      suspended: codec.toBool(p.suspended),
      provisioning_enabled: codec.toBool(p.provisioningEnabled),
      quota_total: p.quotaTotal,
      quota_used: p.quotaUsed,
      template_id: p.templateId,
      created_at: p.createdAt,
    }),

    keyFromRow: (r: PartnerKeyRow): PartnerKey => ({
      id: r.id,
      partnerId: r.partner_id,
      keyHash: r.key_hash,
      hint: r.hint,
      provisioningEnabled: codec.bool(r.provisioning_enabled),
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    }),

    keyToRow: (k: PartnerKey): PartnerKeyRow => ({
      id: k.id,
      partner_id: k.partnerId,
      key_hash: k.keyHash,
      hint: k.hint,
      provisioning_enabled: codec.toBool(k.provisioningEnabled),
      created_at: k.createdAt,
      revoked_at: k.revokedAt,
    }),

    appFromRow: (r: PartnerAppRow): PartnerApp => ({ id: r.id, partnerId: r.partner_id, name: r.name, createdAt: r.created_at }),

    appToRow: (a: PartnerApp): PartnerAppRow => ({ id: a.id, partner_id: a.partnerId, name: a.name, created_at: a.createdAt }),

    templateFromRow: (r: PartnerTemplateRow): PartnerTemplate => ({
      id: r.id,
      partnerId: r.partner_id,
      ref: r.ref,
      suspended: codec.bool(r.suspended),
      definition: codec.json(r.definition),
      createdAt: r.created_at,
    }),

    templateToRow: (t: PartnerTemplate): PartnerTemplateRow => ({
      id: t.id,
      partner_id: t.partnerId,
      ref: t.ref,
      suspended: codec.toBool(t.suspended),
      definition: codec.toJson(t.definition),
      created_at: t.createdAt,
    }),
  };
}
