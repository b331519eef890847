// zod schemas of the management routes (issue 13 item 6): bodies are strict, answers are what the services return.
import { z } from 'zod';
import { ConnectionSecretSchema } from '../../runtime/manifest/organization.schema.js';
import { FlowDefinitionSchema } from '../../runtime/flows/flow-definition.js';
import { SupportGrantSchema } from './partner.schemas.js';

import { NextCursor } from './manage.schemas.js';

export { PageQuery } from './manage.schemas.js';

const name = z.string().trim().min(1).max(200);
const OrgRole = z.enum(['owner', 'admin', 'member']);
const DomainRole = z.enum(['owner', 'editor', 'operator', 'viewer']);
const DomainRoleChange = z.strictObject({ domainId: z.uuid(), role: DomainRole.nullable().describe('null removes the person from the domain.') });

export const CustomerSummarySchema = z
  .object({ id: z.uuid(), name: z.string(), clientSegment: z.string().nullable(), directLoginDisabled: z.boolean(), suspendedAt: z.iso.datetime().nullable(), createdAt: z.iso.datetime() })
  .meta({ id: 'CustomerSummary' });
export const CustomerPageSchema = z.object({ customers: z.array(CustomerSummarySchema), nextCursor: NextCursor });
export const SupportGrantPageSchema = z.object({ grants: z.array(SupportGrantSchema), nextCursor: NextCursor });

export const MemberSchema = z
  .object({
    userId: z.uuid(),
    email: z.string(),
    name: z.string(),
    orgRole: OrgRole,
    status: z.enum(['active', 'invited', 'disabled']).describe('invited: the invitation link was not redeemed yet.'),
    domainRoles: z.array(z.object({ domainId: z.uuid(), role: DomainRole })),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Member' });
export const MemberPageSchema = z.object({ members: z.array(MemberSchema), nextCursor: NextCursor });
export const MemberAnswer = z.object({ member: MemberSchema });
export const InviteBody = z.strictObject({ email: z.email().max(320), name, orgRole: OrgRole.default('member'), domainRoles: z.array(DomainRoleChange).max(100).optional() });
export const InviteAnswer = z.object({
  member: MemberSchema,
  invitationLink: z.string().nullable().describe('Single-use activation link, shown only in this answer; null when the email already had an account with a password.'),
  invitationExpiresAt: z.iso.datetime().nullable(),
});
export const MemberRolesBody = z
  .strictObject({ orgRole: OrgRole.optional(), domainRoles: z.array(DomainRoleChange).max(100).optional() })
  .refine((b) => b.orgRole !== undefined || b.domainRoles !== undefined, { message: 'give orgRole, domainRoles or both' });

export const DomainSchema = z.object({ domainId: z.uuid(), name: z.string(), createdAt: z.iso.datetime() }).meta({ id: 'ManagedDomain' });
export const DomainAnswer = z.object({ domain: DomainSchema });
export const DomainListSchema = z.object({ domains: z.array(DomainSchema) });
export const DomainBody = z.strictObject({ name });

export const ConnectionSchema = z
  .object({ connectionId: z.uuid(), integrationId: z.string(), domainId: z.uuid().nullable(), hasSecret: z.boolean(), createdAt: z.iso.datetime(), rotatedAt: z.iso.datetime().nullable() })
  .meta({ id: 'Connection' });
export const ConnectionAnswer = z.object({ connection: ConnectionSchema });
export const ConnectionListSchema = z.object({ connections: z.array(ConnectionSchema) });
export const ConnectionBody = z.strictObject({
  integrationId: z.string().min(1).max(100),
  domainId: z.uuid().optional().describe('Absent: the connection serves the whole organization.'),
  secret: ConnectionSecretSchema,
});
export const RotateBody = z.strictObject({ secret: ConnectionSecretSchema });

const FlowDefinitionBody = z.strictObject(FlowDefinitionSchema.shape).describe('The step graph: inputs (JSON Schema), steps, output, bindings.');
export const FlowSchema = z
  .object({
    flowId: z.uuid(),
    domainId: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    publishedVersion: z.number().int().nullable(),
    latestVersion: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'ManagedFlow' });
export const FlowAnswer = z.object({ flow: FlowSchema });
export const FlowReadAnswer = z.object({ flow: FlowSchema, definition: z.unknown().describe('The latest version\'s definition.') });
export const FlowVersionAnswer = z.object({ flow: FlowSchema, created: z.boolean().describe('false: the definition equals the latest version, none was added.') });
export const FlowCreateBody = z.strictObject({
  domainId: z.uuid(),
  name,
  description: z.string().max(2000).nullable().optional(),
  definition: FlowDefinitionBody,
  publish: z.boolean().optional().describe('Publish version 1 at once.'),
});
export const FlowVersionBody = z.strictObject({ definition: FlowDefinitionBody, publish: z.boolean().optional() });
export const FlowPublishBody = z.strictObject({ version: z.number().int().min(1) });
