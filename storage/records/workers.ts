// Domain record for a worker mapping: a partner's named worker vouched into a customer organization (storage/repos/workers.repo.ts).
import type { DomainRole } from './tenancy.js';

export interface WorkerDomainRole {
  domainId: string;
  role: DomainRole;
  /** In the domain's approval policy too. */
  approver: boolean;
}

export interface WorkerMapping {
  id: string;
  partnerId: string;
  orgId: string;
  partnerSubject: string;
  userId: string;
  /** As vouched. */
  domainRoles: WorkerDomainRole[];
  /** True when the mapping created the person. */
  provisionedUser: boolean;
  createdAt: number;
  updatedAt: number | null;
  revokedAt: number | null;
}
