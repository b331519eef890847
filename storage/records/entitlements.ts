// Domain record for an entitlement override: a partner's per-customer switch on one agent or flow (storage/repos/entitlements.repo.ts).

export interface EntitlementOverride {
  orgId: string;
  automationId: string;
  enabled: boolean;
  updatedAt: number;
}
