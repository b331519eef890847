// Owns the agent section of a manifest: setup (SPEC "Resources" bounds), bindings, knowledge selection.
import * as z from 'zod';
import { BindingPolicySchema, RefSchema, nameSchema, uniqueRefs } from './common.schema.js';
import { IntegrationIdSchema } from './integration.schema.js';

/** SPEC "Limits": Automation name / description, Setup, Knowledge selection. */
export const AUTOMATION_LIMITS = Object.freeze({
  nameMaxLength: 120,
  descriptionMaxLength: 2_000,
  principlesMaxLength: 100_000,
  procedureMaxLength: 200_000,
  approvalToolsMaxEntries: 50,
  approvalToolMaxLength: 100,
  knowledgeModulesMaxEntries: 100,
  changeNoteMaxLength: 2_000,
});

export const SetupSchema = z.strictObject({
  principles: z.string().max(AUTOMATION_LIMITS.principlesMaxLength).default(''),
  procedure: z.string().max(AUTOMATION_LIMITS.procedureMaxLength).default(''),
  model: z.string().trim().min(1, 'must not be empty'),
  approvalTools: uniqueRefs(
    z.string().min(1, 'must not be empty').max(AUTOMATION_LIMITS.approvalToolMaxLength),
    'approval tool',
  )
    .max(AUTOMATION_LIMITS.approvalToolsMaxEntries)
    .default([]),
});

/** Integration id -> binding policy. */
export const BindingsSchema = z.record(IntegrationIdSchema, BindingPolicySchema);

export const KnowledgeSelectionSchema = z
  .strictObject({
    mode: z.enum(['none', 'org', 'domain', 'modules']),
    /** Knowledge module refs; only with mode `modules`. */
    modules: uniqueRefs(RefSchema, 'module').max(AUTOMATION_LIMITS.knowledgeModulesMaxEntries).optional(),
  })
  .superRefine((selection, ctx) => {
    if (selection.mode !== 'modules' && selection.modules !== undefined && selection.modules.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['modules'], message: 'is only allowed with mode "modules"' });
    }
  });

/** Fields an agent has wherever it is declared (an organization, or a partner template). */
const agentFields = {
  ref: RefSchema,
  name: nameSchema(AUTOMATION_LIMITS.nameMaxLength),
  description: z.string().max(AUTOMATION_LIMITS.descriptionMaxLength).nullable().optional(),
  setup: SetupSchema,
  bindings: BindingsSchema.optional(),
  knowledge: KnowledgeSelectionSchema.optional(),
  /** Publish the setup as a revision (a new one only when setup or belt changed). Never unpublishes. */
  publish: z.boolean().default(false),
  changeNote: z.string().trim().max(AUTOMATION_LIMITS.changeNoteMaxLength).optional(),
  /** Partner entitlement default for this automation. */
  entitled: z.boolean().optional(),
};

export const AgentSchema = z.strictObject({ ...agentFields, domain: RefSchema });
export const TemplateAgentSchema = z.strictObject(agentFields);

export type AgentSetup = z.infer<typeof SetupSchema>;
export type AgentManifest = z.infer<typeof AgentSchema>;
export type TemplateAgentManifest = z.infer<typeof TemplateAgentSchema>;
export type KnowledgeSelectionManifest = z.infer<typeof KnowledgeSelectionSchema>;
