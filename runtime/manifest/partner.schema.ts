// Owns the partner section of a manifest: platform keys, apps, provisioning grant and quota, templates.
import * as z from 'zod';
import { TemplateAgentSchema } from './agent.schema.js';
import { RefSchema, nameSchema, uniqueRefs } from './common.schema.js';
import { TemplateFlowSchema } from './flow.schema.js';

export const PARTNER_LIMITS = Object.freeze({ nameMaxLength: 200, keysMaxEntries: 20, quotaMax: 1_000_000 });

export const PartnerTemplateSchema = z.strictObject({
  ref: RefSchema,
  suspended: z.boolean().default(false),
  /** Name of the domain created in each provisioned organization (the request's domainName wins when given). */
  domainName: nameSchema(200).optional(),
  agents: z.array(TemplateAgentSchema).default([]),
  flows: z.array(TemplateFlowSchema).default([]),
});

export const PartnerSchema = z.strictObject({
  ref: RefSchema,
  name: nameSchema(PARTNER_LIMITS.nameMaxLength),
  suspended: z.boolean().default(false),
  /** Refs of `svp_` keys; each secret is printed once, when the key is created. */
  keys: uniqueRefs(RefSchema, 'key').max(PARTNER_LIMITS.keysMaxEntries).default([]),
  apps: z.array(z.strictObject({ ref: RefSchema, name: nameSchema(PARTNER_LIMITS.nameMaxLength) })).default([]),
  provisioning: z
    .strictObject({
      enabled: z.boolean(),
      /** Durable customer allowance (organizations this partner may create in total). */
      quota: z.int().min(0).max(PARTNER_LIMITS.quotaMax),
      /** Template ref (one of this partner's templates) used for new customers. */
      template: RefSchema.optional(),
    })
    .optional(),
  templates: z.array(PartnerTemplateSchema).default([]),
});

export type PartnerManifest = z.infer<typeof PartnerSchema>;
export type PartnerTemplateManifest = z.infer<typeof PartnerTemplateSchema>;
