// The organizations a signed-in person can work in, and switching the console between them.
import { api } from './api';
import type { components } from '../http/client/schema';

type Schemas = components['schemas'];
export type OrganizationChoice = Schemas['OrganizationChoice'];
export type Organizations = { organizations: OrganizationChoice[]; currentOrgId: string | null };
export type Member = Schemas['Member'];
export type ManagedDomain = Schemas['ManagedDomain'];
export type Connection = Schemas['Connection'];
export type Operations = Schemas['OperationsSnapshot'];

export const ROLE_LABEL: Record<OrganizationChoice['role'], string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

export const listOrganizations = (): Promise<Organizations> => api('GET', '/console/organizations');

/** Switches the cookie to another organization; the caller reloads so no screen keeps the old one's data. */
export const selectOrganization = (orgId: string): Promise<{ orgId: string }> => api('POST', '/console/organization', { orgId });

/** Owners and Admins manage the organization; everyone else is shown who to ask. */
export const canManage = (role: OrganizationChoice['role'] | undefined): boolean => role === 'owner' || role === 'admin';
