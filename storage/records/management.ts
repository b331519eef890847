// Domain records of the management reads (storage/repos/management.repo.ts): an organization's member as its admins see it.
import type { OrgRole } from './tenancy.js';

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: OrgRole;
  createdAt: number;
  /** Set while the membership is disabled in this organization. */
  disabledAt: number | null;
  /** False until the person redeemed an invitation (no password yet). */
  hasPassword: boolean;
  /** The account itself is disabled (in every organization). */
  userDisabled: boolean;
}
