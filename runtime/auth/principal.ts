// Who is calling: the resolved identity behind a credential.

/** `partner_subject`: a partner's customer-tenant call acting as the person X-Service-Subject names. */
export type UserCredentialKind = 'api_key' | 'user_token' | 'console' | 'worker_lease' | 'partner_subject';

/** A person acting inside one organization. */
export interface UserPrincipal {
  kind: 'user';
  via: UserCredentialKind;
  userId: string;
  orgId: string;
  credentialId: string;
}

export interface PartnerPrincipal {
  kind: 'partner';
  partnerId: string;
  partnerKeyId: string;
}

export interface LeasePrincipal {
  kind: 'lease';
  leaseId: string;
  leaseKind: 'app' | 'worker';
  partnerId: string;
  orgId: string;
  appId: string;
  /** For worker leases: the mapped person. */
  userId: string | null;
  partnerSubject: string | null;
}

export type Principal = UserPrincipal | PartnerPrincipal | LeasePrincipal;
