// Owns the flow section of a manifest: declared inputs, the step graph (tool and condition steps), output.
import * as z from 'zod';
import { AUTOMATION_LIMITS, BindingsSchema } from './agent.schema.js';
import { RefSchema, nameSchema } from './common.schema.js';
import { JsonObjectSchema, JsonValueSchema, ObjectJsonSchemaSchema, type JsonObject, type JsonValue } from './json-value.schema.js';

export const FLOW_LIMITS = Object.freeze({ stepsMaxEntries: 200, templateMaxLength: 10_000 });

/** Step ids appear in templates as `steps.<id>`, so they are identifiers (no "-", which reads as minus). */
export const StepIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier (letters, digits, "_", not starting with a digit)');

export interface ToolStep {
  id: string;
  /** Tool wire id `integration.tool`. */
  tool: string;
  /** Arguments; strings may hold `{{…}}` templates over `input` and `steps.<id>.output`. */
  args?: JsonObject;
  /** Gate the call on a run approval. */
  approval?: boolean;
}

export interface ConditionStep {
  id: string;
  /** A `{{…}}` expression; the `then` branch runs when it is truthy, else `else`. */
  if: string;
  then: FlowStep[];
  else?: FlowStep[];
}

export type FlowStep = ToolStep | ConditionStep;

export const ToolStepSchema = z.strictObject({
  id: StepIdSchema,
  tool: z.string().min(1, 'must not be empty').max(100),
  args: JsonObjectSchema.optional(),
  approval: z.boolean().optional(),
});

const stepList = (): z.ZodType<FlowStep[]> => z.array(FlowStepSchema).min(1, 'must have at least one step').max(FLOW_LIMITS.stepsMaxEntries);

export const ConditionStepSchema: z.ZodType<ConditionStep> = z.strictObject({
  id: StepIdSchema,
  if: z.string().trim().min(1, 'must not be empty').max(FLOW_LIMITS.templateMaxLength),
  get then() {
    return stepList();
  },
  get else() {
    return stepList().optional();
  },
});

export const FlowStepSchema: z.ZodType<FlowStep> = z.union([ToolStepSchema, ConditionStepSchema]).meta({ id: 'FlowStep' });

export const FlowSchema = z.strictObject({
  ref: RefSchema,
  domain: RefSchema,
  name: nameSchema(AUTOMATION_LIMITS.nameMaxLength),
  description: z.string().max(AUTOMATION_LIMITS.descriptionMaxLength).nullable().optional(),
  /** JSON Schema of the input object the flow accepts. */
  inputs: ObjectJsonSchemaSchema,
  steps: stepList(),
  /** The flow's result: a template string or any JSON value holding templates. */
  output: JsonValueSchema.optional(),
  bindings: BindingsSchema.optional(),
  /** Publish the step graph as the served version (a new version only when it changed). Never unpublishes. */
  publish: z.boolean().default(false),
  entitled: z.boolean().optional(),
});

export const TemplateFlowSchema = FlowSchema.omit({ domain: true });

export type FlowManifest = z.infer<typeof FlowSchema>;
export type TemplateFlowManifest = z.infer<typeof TemplateFlowSchema>;
export type { JsonValue };
