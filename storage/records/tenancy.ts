// Domain records for organizations, users, memberships, domains and manifest refs (storage/repos/tenancy.repo.ts maps them).

export type OrgRole = 'owner' | 'admin' | 'member';
export type DomainRole = 'owner' | 'editor' | 'operator' | 'viewer';

export interface Organization {
  id: string;
  name: string;
  partnerId: string | null;
  clientSegment: string | null;
  directLoginDisabled: boolean;
  /** Per-organization feature switches (e.g. `{ eventTriggers: false }`); absent means the default. */
  rolloutFlags: Record<string, unknown>;
  createdAt: number;
  /** Set while its partner suspended it; ignored on insert (a new organization is never suspended). */
  suspendedAt: number | null;
}

export interface User {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
  disabled: boolean;
  createdAt: number;
}

export interface Domain {
  id: string;
  orgId: string;
  name: string;
  /** `{ approvers: [userId…] }` as the manifest writes it; other keys are kept. Checked where it is read. */
  approvalPolicy: Record<string, unknown>;
  createdAt: number;
}

export interface OrgMembership {
  orgId: string;
  role: OrgRole;
}

export interface ActiveOrgMembership extends OrgMembership {
  /** The organization's name (for choosing one at sign-in). */
  name: string;
}

export interface DomainMembership {
  domainId: string;
  role: DomainRole;
}

/** What a manifest ref (scope + ref) was applied as. */
export interface ManifestRef {
  entity: string;
  entityId: string;
}
