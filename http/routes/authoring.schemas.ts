// Zod request and response schemas of the authoring routes (SPEC "Authoring", "Limits"); request bodies are strict.
import { z } from 'zod';
import { AUTOMATION_LIMITS } from '../../runtime/manifest/agent.schema.js';
import { KNOWLEDGE_LIMITS } from '../../runtime/manifest/knowledge.schema.js';

/** Repeating a tool in approvalTools means nothing more than naming it once: keep the first. */
const dedupe = (items: string[]): string[] => [...new Set(items)];

const setupFields = {
  principles: z.string().max(AUTOMATION_LIMITS.principlesMaxLength),
  procedure: z.string().max(AUTOMATION_LIMITS.procedureMaxLength),
  model: z.string().trim().min(1, 'must not be empty').max(300),
  approvalTools: z.array(z.string().min(1).max(AUTOMATION_LIMITS.approvalToolMaxLength)).max(AUTOMATION_LIMITS.approvalToolsMaxEntries).transform(dedupe),
};

/** Any of the four Setup fields; omitted ones stay as they are. */
export const SetupPatchBody = z.strictObject({
  principles: setupFields.principles.optional(),
  procedure: setupFields.procedure.optional(),
  model: setupFields.model.optional(),
  approvalTools: setupFields.approvalTools.optional(),
});

export const CreateAgentBody = z.strictObject({
  domainId: z.uuid(),
  name: z.string().trim().min(1, 'must not be empty').max(AUTOMATION_LIMITS.nameMaxLength),
  description: z.string().max(AUTOMATION_LIMITS.descriptionMaxLength).nullable().optional(),
  /** Only agents can be created here; a Flow (`kind: "flow"`) is refused. */
  kind: z.literal('agent').optional(),
  initialSetup: SetupPatchBody.optional(),
});

export const PublishBody = z.strictObject({
  changeNote: z.string().trim().max(AUTOMATION_LIMITS.changeNoteMaxLength).nullable().optional(),
});

export const SelectionBody = z.strictObject({
  mode: z.enum(['none', 'org', 'domain', 'modules']),
  moduleIds: z.array(z.uuid()).max(AUTOMATION_LIMITS.knowledgeModulesMaxEntries).optional(),
});

export const CreateModuleBody = z.strictObject({
  kind: z.enum(['domain', 'org']),
  /** Required for kind `domain`, forbidden for kind `org`. */
  domainId: z.uuid().optional(),
  name: z.string().trim().min(1, 'must not be empty').max(KNOWLEDGE_LIMITS.moduleNameMaxLength),
  description: z.string().max(KNOWLEDGE_LIMITS.moduleDescriptionMaxLength).nullable().optional(),
});

const articleTitle = z.string().trim().min(1, 'must not be empty').max(KNOWLEDGE_LIMITS.articleTitleMaxLength);
const draftBody = z.string().max(KNOWLEDGE_LIMITS.articleBodyMaxLength).nullable();

export const CreateArticleBody = z.strictObject({ title: articleTitle, draftBody: draftBody.optional() });
export const UpdateArticleBody = z.strictObject({ title: articleTitle.optional(), draftBody: draftBody.optional() });
export const MembershipBody = z.strictObject({ articleId: z.uuid() });
/** Action routes take no fields; a body, if sent, must be `{}`. */
export const EmptyBody = z.strictObject({});

/** The bound applies to the trimmed term (the kernel parses the query with this schema). */
export const IntegrationsQuery = z.object({ q: z.string().trim().max(200).optional() });

// Responses (documentation in /api/v1/openapi.json).
const Span = z.object({ start: z.number().int(), end: z.number().int() }).nullable();
const Belt = z.array(z.object({ integrationId: z.string(), identityMode: z.enum(['service', 'caller_preferred', 'caller_required']) }));
const Setup = z.object({ principles: z.string(), procedure: z.string(), model: z.string(), approvalTools: z.array(z.string()) });
const ToolView = z.object({ name: z.string(), reference: z.string(), description: z.string(), isReadonly: z.boolean() });

export const IntegrationListResponse = z.object({
  integrations: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), tools: z.array(ToolView) })).max(50),
});
export const IntegrationResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tools: z.array(ToolView.extend({ inputSchema: z.record(z.string(), z.unknown()) })),
});
export const AgentResponse = z.object({
  id: z.uuid(),
  domainId: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  kind: z.enum(['agent', 'flow']),
});
export const AgentDetailResponse = AgentResponse.extend({
  setup: Setup.nullable(),
  hasUnpublishedChanges: z.boolean(),
  published: z.object({ revision: z.number().int(), setup: Setup, belt: Belt, changeNote: z.string().nullable(), publishedAt: z.iso.datetime() }).nullable(),
});
export const SetupResponse = z.object({ setup: Setup });
export const VerifyResponse = z.object({
  findings: z.array(z.object({ kind: z.string(), span: Span, detail: z.string(), proposal: z.string().nullable() })),
  plannedBelt: Belt,
  warnings: z.array(z.object({ kind: z.enum(['empty_belt', 'unreferenced_tool_id']), span: Span, detail: z.string() })),
});
export const PublishResponse = z.object({ revision: z.number().int().min(1), belt: Belt });
export const SelectionResponse = z.object({ mode: z.enum(['none', 'org', 'domain', 'modules']), moduleIds: z.array(z.uuid()) });
export const ModuleResponse = z.object({ id: z.uuid(), kind: z.enum(['domain', 'org']), domainId: z.uuid().nullable(), name: z.string(), description: z.string().nullable() });
export const ModuleDetailResponse = ModuleResponse.extend({ articleIds: z.array(z.uuid()) });
export const ModuleListResponse = z.object({ modules: z.array(ModuleResponse) });
export const BaseListResponse = z.object({ bases: z.array(z.object({ id: z.uuid(), domainId: z.uuid().nullable(), name: z.string() })) });
export const ArticleResponse = z.object({
  id: z.uuid(),
  baseId: z.uuid(),
  title: z.string(),
  draftBody: z.string().nullable(),
  published: z.boolean(),
  publishedBody: z.string().nullable(),
  publishedAt: z.iso.datetime().nullable(),
});
export const MembershipResponse = z.object({ moduleId: z.uuid(), articleId: z.uuid(), createdAt: z.iso.datetime() });
