// Domain records for partner platforms: the partner, its `svp_` keys (hashed), apps and templates (storage/repos/partners.repo.ts).

export interface Partner {
  id: string;
  name: string;
  suspended: boolean;
  provisioningEnabled: boolean;
  quotaTotal: number;
  /** Durable spend: written only by `spendQuota`, never by configuration (ignored by `updatePartner`). */
  quotaUsed: number;
  templateId: string | null;
  createdAt: number;
}

export interface PartnerKey {
  id: string;
  partnerId: string;
  keyHash: Buffer;
  hint: string;
  provisioningEnabled: boolean;
  createdAt: number;
  revokedAt: number | null;
}

export interface PartnerApp {
  id: string;
  partnerId: string;
  name: string;
  createdAt: number;
}

export interface PartnerTemplate {
  id: string;
  partnerId: string;
  ref: string;
  suspended: boolean;
  /** The template as declared (agents, flows, domainName), parsed; `undefined` when the stored JSON no longer parses. */
  definition: unknown;
  createdAt: number;
}
