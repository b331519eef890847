// Domain record for a support grant: a customer admin lets its partner read one session (storage/repos/support-grants.repo.ts).

export interface SupportGrant {
  id: string;
  orgId: string;
  partnerId: string;
  sessionId: string;
  createdBy: string | null;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}
