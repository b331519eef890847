// Owns reading a published flow version once: its definition with every template compiled (versions never change).
import type { PortRepositories } from '../../storage/port/storage.js';
import type { JsonValue } from '../manifest/json-value.schema.js';
import { flowDefinitionOfVersion, isToolStep, walkSteps, type FlowDefinition } from './flow-definition.js';
import { TemplateCache, hasTemplate } from './template.js';

export interface LoadedFlow {
  readonly automationId: string;
  readonly version: number;
  readonly definition: FlowDefinition;
  /** Holds every template of the version, compiled: rendering a step never meets a syntax error. */
  readonly templates: TemplateCache;
}

export type LoadResult = { readonly ok: true; readonly flow: LoadedFlow } | { readonly ok: false; readonly message: string };

function eachString(value: JsonValue | undefined, visit: (text: string) => void): void {
  if (typeof value === 'string') visit(value);
  else if (Array.isArray(value)) value.forEach((item) => eachString(item, visit));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((item) => eachString(item, visit));
}

/** Compiles every template; throws the first syntax error. */
function compileAll(definition: FlowDefinition, templates: TemplateCache): void {
  const compile = (text: string) => {
    if (hasTemplate(text)) templates.get(text);
  };
  for (const { step } of walkSteps(definition.steps)) {
    if (isToolStep(step)) eachString(step.args, compile);
    else templates.get(step.if.trim());
  }
  eachString(definition.output, compile);
}

export function createFlowVersions(automations: Pick<PortRepositories['automations'], 'flowVersion'>) {
  const loaded = new Map<string, LoadedFlow>();
  return {
    async load(automationId: string, version: number): Promise<LoadResult> {
      const key = `${automationId}@${version}`;
      const cached = loaded.get(key);
      if (cached !== undefined) return { ok: true, flow: cached };
      const row = await automations.flowVersion(automationId, version);
      if (row === undefined) return { ok: false, message: `Version ${version} of this flow does not exist.` };
      try {
        const definition = flowDefinitionOfVersion(row);
        const templates = new TemplateCache();
        compileAll(definition, templates);
        const flow = { automationId, version, definition, templates };
        loaded.set(key, flow);
        return { ok: true, flow };
      } catch (error) {
        return { ok: false, message: `Version ${version} of this flow cannot be run: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
  };
}

export type FlowVersions = ReturnType<typeof createFlowVersions>;
