// The organization itself (issue 13 item 6): members (invite, roles, disable) and domains (create, rename); Owner/Admin.
import type { Services } from '../../runtime/services.js';
import type { Route } from '../types.js';
import { manageErrors, manageRoute } from './manage-route.js';
import { DomainAnswer, DomainBody, DomainListSchema, InviteAnswer, InviteBody, MemberAnswer, MemberPageSchema, MemberRolesBody, PageQuery } from './org-manage.schemas.js';
import { linkBase } from './partner-provisioning.route.js';

const ORG = '/api/v1/org';
const doc = { tags: ['organization'] };

const memberSwitch = (disabled: boolean) =>
  manageRoute({
    method: 'POST',
    path: `${ORG}/members/:userId/${disabled ? 'disable' : 'enable'}`,
    doc: {
      ...doc,
      summary: disabled
        ? 'Disable a member: their sv_ keys, svu_ tokens, console sessions, worker mappings and partner-subject calls stop at once in this organization. Idempotent.'
        : 'Enable a disabled member again (their unrevoked keys work again). Idempotent.',
      operationId: disabled ? 'disableMember' : 'enableMember',
      responses: { 200: { description: 'the member', schema: MemberAnswer }, ...manageErrors({ 409: { description: 'CONFLICT: yourself, or the last active Owner' } }) },
    },
    handler: async ({ caller, params }, services) => ({ status: 200, body: { member: await services.management.members.setDisabled(caller, params.userId ?? '', disabled) } }),
  });

export const orgManageRoutes: Route<Services>[] = [
  manageRoute({
    method: 'GET',
    path: `${ORG}/members`,
    doc: { ...doc, summary: 'The organization\'s members with their roles and status, oldest first, paged.', operationId: 'listMembers', query: PageQuery, responses: { 200: { description: 'a page of members', schema: MemberPageSchema }, ...manageErrors({ 400: { description: 'VALIDATION: bad limit or cursor' } }) } },
    async handler({ caller, query, request }, services) {
      const page = await services.management.members.list(caller, query);
      return { status: 200, body: { members: page.items, nextCursor: page.nextCursor } };
    },
  }),
  manageRoute({
    method: 'POST',
    path: `${ORG}/members`,
    doc: {
      ...doc,
      summary: 'Invite a person: creates the membership (and domain roles) and answers a single-use activation link once (redeemed at POST /api/v1/console/activate). Only an Owner invites an Owner.',
      operationId: 'inviteMember',
      body: InviteBody,
      responses: { 201: { description: 'the member and the link', schema: InviteAnswer }, ...manageErrors({ 400: { description: 'VALIDATION' }, 409: { description: 'CONFLICT: already a member' } }) },
    },
    async handler({ caller, body, request }, services) {
      const answer = await services.management.members.invite(caller, body, linkBase(request, services));
      return { status: 201, headers: { 'cache-control': 'no-store' }, body: answer };
    },
  }),
  manageRoute({
    method: 'PATCH',
    path: `${ORG}/members/:userId`,
    doc: {
      ...doc,
      summary: 'Set a member\'s organization role and/or domain roles (a null domain role removes them from that domain). Only an Owner changes an Owner.',
      operationId: 'setMemberRoles',
      body: MemberRolesBody,
      responses: { 200: { description: 'the member', schema: MemberAnswer }, ...manageErrors({ 400: { description: 'VALIDATION' }, 409: { description: 'CONFLICT: the last active Owner' } }) },
    },
    handler: async ({ caller, body, params }, services) => ({ status: 200, body: { member: await services.management.members.setRoles(caller, params.userId ?? '', body) } }),
  }),
  memberSwitch(true),
  memberSwitch(false),
  manageRoute({
    method: 'GET',
    path: `${ORG}/domains`,
    doc: { ...doc, summary: 'The organization\'s domains.', operationId: 'listDomains', responses: { 200: { description: 'domains', schema: DomainListSchema }, ...manageErrors() } },
    handler: async ({ caller }, services) => ({ status: 200, body: { domains: await services.management.domains.list(caller) } }),
  }),
  manageRoute({
    method: 'POST',
    path: `${ORG}/domains`,
    doc: {
      ...doc,
      summary: 'Create a domain (names are unique per organization, case-insensitive); its creator becomes its Owner.',
      operationId: 'createDomain',
      body: DomainBody,
      responses: { 201: { description: 'the domain', schema: DomainAnswer }, ...manageErrors({ 400: { description: 'VALIDATION' }, 409: { description: 'CONFLICT: the name is taken' } }) },
    },
    handler: async ({ caller, body }, services) => ({ status: 201, body: { domain: await services.management.domains.create(caller, body) } }),
  }),
  manageRoute({
    method: 'PATCH',
    path: `${ORG}/domains/:domainId`,
    doc: {
      ...doc,
      summary: 'Rename a domain.',
      operationId: 'renameDomain',
      body: DomainBody,
      responses: { 200: { description: 'the domain', schema: DomainAnswer }, ...manageErrors({ 400: { description: 'VALIDATION' }, 409: { description: 'CONFLICT: the name is taken' } }) },
    },
    handler: async ({ caller, body, params }, services) => ({ status: 200, body: { domain: await services.management.domains.rename(caller, params.domainId ?? '', body) } }),
  }),
];
