// Owns the flow definition as the engine reads it (stored version -> typed graph), its step walk and its belt.
import * as z from 'zod';
import type { FlowVersion } from '../../storage/records/automations.js';
import { BindingsSchema } from '../manifest/agent.schema.js';
import { integrationOfTool } from '../manifest/belt.js';
import { FlowSchema, type ConditionStep, type FlowStep, type ToolStep } from '../manifest/flow.schema.js';
import { JsonValueSchema, ObjectJsonSchemaSchema, type JsonValue, type ObjectJsonSchema } from '../manifest/json-value.schema.js';
import type { IdentityBinding, IntegrationBinding } from '../vault/index.js';

export type { ConditionStep, FlowStep, ToolStep };

/**
 * The graph part of a flow: what `flow_versions.definition` holds (`{ inputs, steps, output }`) plus the bindings
 * stored beside it. Reuses the manifest's step schemas, so authoring and execution accept exactly the same graph.
 * Not strict at the top level: callers may pass a whole manifest flow entry (ref, name … are ignored here).
 */
export const FlowDefinitionSchema = z.object({
  inputs: ObjectJsonSchemaSchema,
  steps: FlowSchema.shape.steps,
  output: JsonValueSchema.optional(),
  bindings: BindingsSchema.optional(),
});

export interface FlowDefinition {
  readonly inputs: ObjectJsonSchema;
  readonly steps: readonly FlowStep[];
  /** The flow's result template; null when the flow declares none. */
  readonly output: JsonValue;
  /** Integration id -> binding policy; an integration the flow uses without a binding runs with service identity. */
  readonly bindings: Readonly<Record<string, IdentityBinding>>;
}

export const isToolStep = (step: FlowStep): step is ToolStep => 'tool' in step;

export interface WalkedStep {
  readonly step: FlowStep;
  /** Path inside the definition, e.g. `['steps', 1, 'then', 0]`. */
  readonly path: readonly (string | number)[];
  /** Pre-order position over the whole graph: a step can only read steps with a lower position. */
  readonly position: number;
  /** The branches enclosing the step, outermost first, as `<conditionId>:then|else`. */
  readonly branches: readonly string[];
}

/** Every step in document (pre-order) order: a condition before its `then` steps, `then` before `else`. */
export function walkSteps(steps: readonly FlowStep[]): WalkedStep[] {
  const out: WalkedStep[] = [];
  const visit = (list: readonly FlowStep[], path: readonly (string | number)[], branches: readonly string[]) => {
    list.forEach((step, k) => {
      const at = [...path, k];
      out.push({ step, path: at, position: out.length, branches });
      if (!isToolStep(step)) {
        visit(step.then, [...at, 'then'], [...branches, `${step.id}:then`]);
        if (step.else !== undefined) visit(step.else, [...at, 'else'], [...branches, `${step.id}:else`]);
      }
    });
  };
  visit(steps, ['steps'], []);
  return out;
}

/** False when the two steps sit on different branches of one condition, so one can never run before the other. */
export function mayRunTogether(a: WalkedStep, b: WalkedStep): boolean {
  const depth = Math.min(a.branches.length, b.branches.length);
  for (let i = 0; i < depth; i++) {
    const [conditionA] = a.branches[i]!.split(':');
    const [conditionB] = b.branches[i]!.split(':');
    if (conditionA !== conditionB) return true;
    if (a.branches[i] !== b.branches[i]) return false;
  }
  return true;
}

/** The belt: each integration the flow's tool steps use, in order of first use, with its binding (default service). */
export function flowBelt(definition: Pick<FlowDefinition, 'steps' | 'bindings'>): IntegrationBinding[] {
  const integrations = new Set<string>();
  for (const { step } of walkSteps(definition.steps)) if (isToolStep(step)) integrations.add(integrationOfTool(step.tool));
  return [...integrations].map((integrationId) => ({
    integrationId,
    identityMode: Object.hasOwn(definition.bindings, integrationId) ? definition.bindings[integrationId]! : 'service',
  }));
}

/** Shape-checks a parsed definition object (templates and references are validate-flow's job). */
export function toFlowDefinition(parsed: z.infer<typeof FlowDefinitionSchema>): FlowDefinition {
  return { inputs: parsed.inputs, steps: parsed.steps, output: parsed.output ?? null, bindings: parsed.bindings ?? {} };
}

/** Reads an immutable stored version. Throws when the row does not hold a flow graph (a corrupted or foreign row). */
export function flowDefinitionOfVersion(row: FlowVersion): FlowDefinition {
  const parsed = FlowDefinitionSchema.parse({ ...(row.definition as object), bindings: row.bindings });
  return toFlowDefinition(parsed);
}
