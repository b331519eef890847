// Organization members (issue 13 item 6): list, invite with a single-use link, set roles, disable/enable.
/*
 * Invitations reuse the partner API's activation mechanism: an `svi_` secret, stored only as its SHA-256, redeemed
 * once at POST /api/v1/console/activate (runtime/partners/activation.service.ts) to set the first password. The
 * link is returned once, in the invite answer. Disabling a member sets `org_memberships.disabled_at`: the key
 * query, the token and console checks and every role lookup refuse that person in this organization at once.
 */
import type { Storage } from '../../storage/port/storage.js';
import type { Member } from '../../storage/records/management.js';
import type { DomainRole, OrgRole } from '../../storage/repos/tenancy.repo.js';
import { hashSecret, mintSecret } from '../auth/secrets.js';
import { toIso, type Clock } from '../clock.js';
import { AppError, forbidden, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { activationLink } from '../partners/provisioning-outcome.js';
import { INVITATION_TTL_MS } from '../partners/customer-record.js';
import { domainOfOrg, requireOrgAdmin, type Manager } from './org-access.js';
import { viewPage, type Page, type PageQuery } from '../paging/keyset-page.js';

export interface DomainRoleChange {
  domainId: string;
  /** null removes the person from the domain. */
  role: DomainRole | null;
}

export interface MemberView {
  userId: string;
  email: string;
  name: string;
  orgRole: OrgRole;
  /** invited: no password yet (the invitation link was not redeemed). */
  status: 'active' | 'invited' | 'disabled';
  domainRoles: Array<{ domainId: string; role: DomainRole }>;
  createdAt: string;
}

export interface InviteInput {
  email: string;
  name: string;
  orgRole: OrgRole;
  domainRoles?: DomainRoleChange[];
}

export interface InviteAnswer {
  member: MemberView;
  /** The single-use link (shown once); null when the email already had an account with a password (it signs in as it is). */
  invitationLink: string | null;
  invitationExpiresAt: string | null;
}

export interface MembersService {
  list(manager: Manager, query: PageQuery): Page<MemberView>;
  invite(manager: Manager, input: InviteInput, linkBase: string): Promise<InviteAnswer>;
  setRoles(manager: Manager, userId: string, input: { orgRole?: OrgRole; domainRoles?: DomainRoleChange[] }): Promise<MemberView>;
  setDisabled(manager: Manager, userId: string, disabled: boolean): Promise<MemberView>;
}

export function createMembersService(deps: { store: Storage; clock: Clock }): MembersService {
  const { repos, writer } = deps.store;
  const { tenancy, management } = repos;

  const view = (orgId: string, member: Member): MemberView => ({
    userId: member.userId,
    email: member.email,
    name: member.name,
    orgRole: member.role,
    status: member.disabledAt !== null || member.userDisabled ? 'disabled' : member.hasPassword ? 'active' : 'invited',
    domainRoles: tenancy.domainRolesOfUser(member.userId, orgId).map((d) => ({ domainId: d.domainId, role: d.role })),
    createdAt: toIso(member.createdAt),
  });

  const memberOf = (orgId: string, userId: string): Member => {
    const row = isUuid(userId) ? management.member(orgId, userId) : undefined;
    if (row === undefined) throw notFound();
    return row;
  };

  /** Owners are changed only by owners, and the organization always keeps one active owner. */
  function guardOwner(manager: Manager, callerRole: OrgRole, target: Member, losesOwner: boolean): void {
    if ((target.role === 'owner' || losesOwner) && callerRole !== 'owner') throw forbidden('Only an organization Owner can change an Owner.');
    if (target.role === 'owner' && losesOwner && target.disabledAt === null && management.activeOwnerCount(manager.orgId) <= 1) {
      throw new AppError('CONFLICT', 'The organization must keep at least one active Owner.');
    }
  }

  function applyDomainRoles(manager: Manager, userId: string, changes: DomainRoleChange[] | undefined, now: number): void {
    for (const change of changes ?? []) {
      const domain = domainOfOrg(repos, manager.orgId, change.domainId);
      if (change.role === null) tenancy.removeDomainMember(domain.id, userId);
      else tenancy.setDomainRole(domain.id, userId, change.role, now);
    }
  }

  return {
    list: (manager, query) => {
      requireOrgAdmin(repos, manager);
      return viewPage(query, (after, limit) => management.members(manager.orgId, after, limit), (member) => ({ createdAt: member.createdAt, id: member.userId }), (member) => view(manager.orgId, member));
    },

    async invite(manager, input, linkBase) {
      const callerRole = requireOrgAdmin(repos, manager);
      if (input.orgRole === 'owner' && callerRole !== 'owner') throw forbidden('Only an organization Owner can invite an Owner.');
      const secret = mintSecret('svi_');
      const now = deps.clock.now();
      const answer = await writer.submit(() => {
        let user = tenancy.userByEmail(input.email);
        if (user !== undefined && management.member(manager.orgId, user.id) !== undefined) throw new AppError('CONFLICT', 'This person is already a member of the organization.');
        if (user === undefined) {
          user = { id: newId(), email: input.email, name: input.name, passwordHash: null, disabled: false, createdAt: now };
          tenancy.insertUser(user);
        }
        tenancy.setOrgRole(manager.orgId, user.id, input.orgRole, now);
        applyDomainRoles(manager, user.id, input.domainRoles, now);
        // A link only sets a first password: an account that has one is never handed to a link (it could take it over).
        const needsLink = user.passwordHash === null;
        if (needsLink) {
          repos.provisioning.insertInvitation({ id: newId(), userId: user.id, tokenHash: hashSecret(secret), expiresAt: now + INVITATION_TTL_MS, usedAt: null, createdAt: now });
        }
        return { member: view(manager.orgId, management.member(manager.orgId, user.id)!), needsLink };
      });
      return {
        member: answer.member,
        invitationLink: answer.needsLink ? activationLink(linkBase, secret) : null,
        invitationExpiresAt: answer.needsLink ? toIso(now + INVITATION_TTL_MS) : null,
      };
    },

    async setRoles(manager, userId, input) {
      const callerRole = requireOrgAdmin(repos, manager);
      return writer.submit(() => {
        const target = memberOf(manager.orgId, userId);
        const now = deps.clock.now();
        if (input.orgRole !== undefined && input.orgRole !== target.role) {
          guardOwner(manager, callerRole, target, target.role === 'owner' || input.orgRole === 'owner');
          tenancy.setOrgRole(manager.orgId, target.userId, input.orgRole, now);
        }
        applyDomainRoles(manager, target.userId, input.domainRoles, now);
        return view(manager.orgId, memberOf(manager.orgId, userId));
      });
    },

    async setDisabled(manager, userId, disabled) {
      const callerRole = requireOrgAdmin(repos, manager);
      return writer.submit(() => {
        const target = memberOf(manager.orgId, userId);
        if (target.userId === manager.userId) throw new AppError('CONFLICT', 'You cannot disable yourself.');
        if (disabled && target.disabledAt === null) {
          guardOwner(manager, callerRole, target, target.role === 'owner');
          management.setMemberDisabled(manager.orgId, target.userId, deps.clock.now());
        } else if (!disabled && target.disabledAt !== null) {
          if (target.role === 'owner' && callerRole !== 'owner') throw forbidden('Only an organization Owner can change an Owner.');
          management.setMemberDisabled(manager.orgId, target.userId, null);
        }
        return view(manager.orgId, memberOf(manager.orgId, userId));
      });
    },
  };
}
