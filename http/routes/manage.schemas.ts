// Zod schemas of the management routes (triggers, automations, API keys, knowledge): queries, bodies, answers.
import { z } from 'zod';
import { nameSchema } from '../../runtime/manifest/common.schema.js';
import { AUTOMATION_LIMITS } from '../../runtime/manifest/agent.schema.js';
import { PAGE_DEFAULT, PAGE_MAX } from '../../runtime/paging/keyset-page.js';
import type { RouteDoc } from '../types.js';

const limit = z.coerce.number().int().min(1).max(PAGE_MAX).default(PAGE_DEFAULT).describe(`Page size (1–${PAGE_MAX}, default ${PAGE_DEFAULT}).`);
const cursor = z.string().min(1).max(200).optional().describe('nextCursor of the previous page.');
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

export const PageQuery = z.strictObject({ limit, cursor });
export const NextCursor = z.string().nullable().describe('Pass as cursor for the next page; null on the last page.');

/** Every management route: the console cookie or a bearer credential, and the uniform 404 / 401 answers. */
export function manageDoc<D extends RouteDoc>(tag: string, doc: D): D {
  return {
    tags: [tag],
    ...doc,
    responses: {
      ...doc.responses,
      401: { description: 'UNAUTHORIZED: no bearer credential and no console session with an organization selected' },
      404: { description: 'NOT_FOUND: bad credential, unknown or malformed id, or another organization\'s id (uniform)' },
    },
  };
}

// Triggers

export const TriggerListQuery = z.strictObject({
  domainId: z.uuid().optional(),
  type: z.enum(['schedule', 'api', 'event']).optional(),
  limit,
  cursor,
});

export const SubscriberSummary = z.object({
  automationId: z.uuid(),
  kind: z.enum(['agent', 'flow']),
  name: z.string(),
  published: z.boolean().describe('False for a draft-only or archived automation: firings skip it with NOT_PUBLISHED.'),
  archived: z.boolean(),
});

// Automations

export const AutomationListQuery = z.strictObject({
  kind: z.enum(['agent', 'flow']).optional(),
  domainId: z.uuid().optional(),
  archived: flag.optional().describe('true: only archived; false: only live; absent: both.'),
  limit,
  cursor,
});

export const AutomationSummary = z.object({
  id: z.uuid(),
  kind: z.enum(['agent', 'flow']),
  domainId: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  publishedRevision: z.number().int().nullable().describe('The revision (agent) or version (flow) that runs; null when unpublished or archived.'),
  archived: z.boolean(),
  archivedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const RevisionSummary = z.object({
  revision: z.number().int().describe('Agent revision or flow version.'),
  createdAt: z.iso.datetime(),
  publishedBy: z.uuid().nullable(),
  changeNote: z.string().nullable(),
  current: z.boolean().describe('The revision the published pointer names (kept while archived).'),
});

export const DescribeAutomationBody = z
  .strictObject({
    name: nameSchema(AUTOMATION_LIMITS.nameMaxLength).optional(),
    description: z.string().max(AUTOMATION_LIMITS.descriptionMaxLength).nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'name at least one field to change');

export const RollbackBody = z.strictObject({ revision: z.number().int().min(1).describe('An earlier (or any) published revision or version.') });

// API keys

export const ApiKeyView = z.object({
  id: z.uuid(),
  name: z.string(),
  hint: z.string().describe('"sv_…" and the last four characters.'),
  userId: z.uuid(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable().describe('To the minute; null when never used.'),
  revokedAt: z.iso.datetime().nullable(),
});

export const CreateApiKeyBody = z.strictObject({ name: nameSchema(120).describe('What the key is for (1–120 characters).') });

export const OrgKeysQuery = z.strictObject({ userId: z.uuid().optional(), limit, cursor });

// Knowledge

export const ArticleListQuery = z.strictObject({ published: flag.optional().describe('Filter on published state.'), limit, cursor });

export const ArticleSummary = z.object({
  id: z.uuid(),
  baseId: z.uuid(),
  title: z.string(),
  published: z.boolean(),
  publishedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const NoContent = { description: 'done (no body)' };
