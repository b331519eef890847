// Owns the knowledge section of a manifest: bases with articles, and modules (SPEC "Knowledge resources", "Limits").
import * as z from 'zod';
import { RefSchema, nameSchema, uniqueRefs } from './common.schema.js';

export const KNOWLEDGE_LIMITS = Object.freeze({
  baseNameMaxLength: 200,
  moduleNameMaxLength: 200,
  moduleDescriptionMaxLength: 10_000,
  articleTitleMaxLength: 240,
  articleBodyMaxLength: 2_000_000,
  moduleArticlesMaxEntries: 10_000,
});

export const ArticleSchema = z.strictObject({
  ref: RefSchema,
  title: nameSchema(KNOWLEDGE_LIMITS.articleTitleMaxLength),
  /** The draft body; publishing copies it to the published (indexed) text. */
  body: z.string().max(KNOWLEDGE_LIMITS.articleBodyMaxLength).nullable().default(null),
  /** Publish (and index) the body. Never unpublishes an article published earlier. */
  published: z.boolean().default(false),
});

export const KnowledgeBaseSchema = z.strictObject({
  ref: RefSchema,
  name: nameSchema(KNOWLEDGE_LIMITS.baseNameMaxLength),
  /** Domain ref when the base belongs to one domain; absent for an organization-wide base. */
  domain: RefSchema.optional(),
  articles: z.array(ArticleSchema).default([]),
});

export const KnowledgeModuleSchema = z
  .strictObject({
    ref: RefSchema,
    kind: z.enum(['domain', 'org']),
    /** Required for kind `domain`, forbidden for kind `org` (SPEC authoring rule). */
    domain: RefSchema.optional(),
    name: nameSchema(KNOWLEDGE_LIMITS.moduleNameMaxLength),
    description: z.string().max(KNOWLEDGE_LIMITS.moduleDescriptionMaxLength).nullable().optional(),
    /** Published article refs that are members of the module. */
    articles: uniqueRefs(RefSchema, 'article').max(KNOWLEDGE_LIMITS.moduleArticlesMaxEntries).default([]),
  })
  .superRefine((module, ctx) => {
    if (module.kind === 'domain' && module.domain === undefined) {
      ctx.addIssue({ code: 'custom', path: ['domain'], message: 'is required for a module of kind "domain"' });
    }
    if (module.kind === 'org' && module.domain !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['domain'], message: 'is not allowed for a module of kind "org"' });
    }
  });

export const KnowledgeSchema = z.strictObject({
  bases: z.array(KnowledgeBaseSchema).default([]),
  modules: z.array(KnowledgeModuleSchema).default([]),
});

export type ArticleManifest = z.infer<typeof ArticleSchema>;
export type KnowledgeBaseManifest = z.infer<typeof KnowledgeBaseSchema>;
export type KnowledgeModuleManifest = z.infer<typeof KnowledgeModuleSchema>;
export type KnowledgeManifest = z.infer<typeof KnowledgeSchema>;
