// Owns an organization of the manifest: users (with api keys), domains, connections, and its automations.
import * as z from 'zod';
import { CALLER_CREDENTIAL_LIMITS } from '../vault/caller-credentials.schema.js';
import { AgentSchema } from './agent.schema.js';
import { DomainRoleSchema, OrgRoleSchema, RefSchema, nameSchema, uniqueRefs } from './common.schema.js';
import { FlowSchema } from './flow.schema.js';
import { IntegrationIdSchema } from './integration.schema.js';
import { KnowledgeSchema } from './knowledge.schema.js';
import { TriggerSchema } from './trigger.schema.js';

export const ORGANIZATION_LIMITS = Object.freeze({
  nameMaxLength: 200,
  passwordMinLength: 8,
  passwordMaxLength: 1_024,
  apiKeysMaxEntries: 20,
  approversMaxEntries: 100,
});

export const UserSchema = z.strictObject({
  ref: RefSchema,
  email: z.email().max(320),
  name: nameSchema(ORGANIZATION_LIMITS.nameMaxLength),
  /** Console password; stored only as a scrypt hash. Absent: the user cannot sign in to the console. */
  password: z.string().min(ORGANIZATION_LIMITS.passwordMinLength).max(ORGANIZATION_LIMITS.passwordMaxLength).optional(),
  orgRole: OrgRoleSchema,
  /** Refs (and names) of `sv_` keys; each secret is printed once, when the key is created. */
  apiKeys: uniqueRefs(RefSchema, 'api key').max(ORGANIZATION_LIMITS.apiKeysMaxEntries).default([]),
  disabled: z.boolean().default(false),
});

export const DomainSchema = z.strictObject({
  ref: RefSchema,
  name: nameSchema(ORGANIZATION_LIMITS.nameMaxLength),
  members: z.array(z.strictObject({ user: RefSchema, role: DomainRoleSchema })).default([]),
  /** Who may decide approvals in this domain: user refs. */
  approvalPolicy: z
    .strictObject({ approvers: uniqueRefs(RefSchema, 'approver').max(ORGANIZATION_LIMITS.approversMaxEntries) })
    .optional(),
});

const SECRET_VALUE = z
  .string()
  .min(1, 'must not be empty')
  .max(CALLER_CREDENTIAL_LIMITS.secretMaxLength)
  .regex(/^[^\r\n]*$/, 'must not contain a newline');

/** The organization's account material for an integration; stored sealed, never in clear. */
export const ConnectionSecretSchema = z
  .strictObject({
    token: SECRET_VALUE.optional(),
    fields: z
      .record(
        z.string().regex(/^[A-Za-z0-9_]{1,64}$/, 'must be 1-64 ASCII letters, digits or "_"'),
        SECRET_VALUE,
      )
      .optional(),
  })
  .superRefine((secret, ctx) => {
    const fieldCount = secret.fields === undefined ? 0 : Object.keys(secret.fields).length;
    if (secret.fields !== undefined && (fieldCount < 1 || fieldCount > CALLER_CREDENTIAL_LIMITS.fieldsMaxEntries)) {
      ctx.addIssue({ code: 'custom', path: ['fields'], message: `must have 1 to ${CALLER_CREDENTIAL_LIMITS.fieldsMaxEntries} entries` });
    }
    if (secret.token === undefined && secret.fields === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'must have a token or fields' });
    }
  });

export const ConnectionSchema = z.strictObject({
  ref: RefSchema,
  integration: IntegrationIdSchema,
  /** Domain ref; absent: the connection serves the whole organization. */
  domain: RefSchema.optional(),
  secret: ConnectionSecretSchema.optional(),
});

export const OrganizationSchema = z.strictObject({
  ref: RefSchema,
  name: nameSchema(ORGANIZATION_LIMITS.nameMaxLength),
  users: z.array(UserSchema).default([]),
  domains: z.array(DomainSchema).default([]),
  connections: z.array(ConnectionSchema).default([]),
  agents: z.array(AgentSchema).default([]),
  flows: z.array(FlowSchema).default([]),
  triggers: z.array(TriggerSchema).default([]),
  knowledge: KnowledgeSchema.default({ bases: [], modules: [] }),
});

export type UserManifest = z.infer<typeof UserSchema>;
export type DomainManifest = z.infer<typeof DomainSchema>;
export type ConnectionManifest = z.infer<typeof ConnectionSchema>;
export type ConnectionSecret = z.infer<typeof ConnectionSecretSchema>;
export type OrganizationManifest = z.infer<typeof OrganizationSchema>;
