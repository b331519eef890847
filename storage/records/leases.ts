// Domain record for a partner lease (`svt_`, one hour), found by the SHA-256 of its secret (storage/repos/leases.repo.ts).

export type LeaseKind = 'app' | 'worker';

export interface Lease {
  id: string;
  partnerId: string;
  orgId: string;
  appId: string;
  kind: LeaseKind;
  partnerSubject: string | null;
  mappingId: string | null;
  tokenHash: Buffer;
  createdAt: number;
  expiresAt: number;
}
