// Owns checking a flow definition before it is published or applied: shape, tools, templates, step references.
import type { JsonValue } from '../manifest/json-value.schema.js';
import { formatPath, issuesFromZod, manifestErrorMap } from '../manifest/manifest-error.js';
import { AppError } from '../errors.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { createJsonSchemaValidator, formatIssues, type JsonSchemaValidator } from '../tools/json-schema-validator.js';
import type { IntegrationBinding } from '../vault/index.js';
import { FlowDefinitionSchema, flowBelt, isToolStep, mayRunTogether, toFlowDefinition, walkSteps, type FlowDefinition, type WalkedStep } from './flow-definition.js';
import { TemplateSyntaxError, compileTemplate, hasTemplate, type CompiledTemplate } from './template.js';

export interface FlowIssue {
  /** Path inside the definition, e.g. `steps[1].if` (prefix it with the flow's own path in a manifest). */
  readonly path: string;
  readonly message: string;
}

export type FlowValidation =
  | { readonly ok: true; readonly definition: FlowDefinition; readonly belt: IntegrationBinding[] }
  | { readonly ok: false; readonly issues: readonly FlowIssue[] };

/** What validation needs of the catalog: the tools and integrations the flow's organization can use. */
export type FlowCatalog = Pick<ToolCatalog, 'findTool' | 'integration'>;

export interface ValidateFlowOptions {
  readonly validator?: JsonSchemaValidator;
}


type Path = readonly (string | number)[];

function collectStrings(value: JsonValue | undefined, path: Path, out: Array<{ path: Path; text: string }>): void {
  if (typeof value === 'string') out.push({ path, text: value });
  else if (Array.isArray(value)) value.forEach((item, i) => collectStrings(item, [...path, i], out));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) collectStrings(item, [...path, key], out);
}

class FlowChecker {
  readonly issues: FlowIssue[] = [];
  constructor(
    private readonly catalog: FlowCatalog,
    private readonly validator: JsonSchemaValidator,
  ) {}

  fail(path: Path, message: string): void {
    this.issues.push({ path: formatPath(path), message });
  }

  compile(path: Path, text: string): CompiledTemplate | null {
    try {
      return compileTemplate(text);
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      this.fail(path, `template error at character ${error.at + 1}: ${error.message}`);
      return null;
    }
  }

  /** Each step a template reads must be a tool step that can have run before `reader` (null: the flow's output). */
  references(path: Path, template: CompiledTemplate, reader: WalkedStep | null, byId: ReadonlyMap<string, WalkedStep>): void {
    for (const id of template.references) {
      const target = byId.get(id);
      if (target === undefined) this.fail(path, `refers to unknown step "${id}"`);
      else if (!isToolStep(target.step)) this.fail(path, `refers to "${id}", a condition step, which has no output`);
      else if (reader !== null && target.position >= reader.position) this.fail(path, `refers to step "${id}", which runs ${target === reader ? 'as this step' : 'later'}`);
      else if (reader !== null && !mayRunTogether(target, reader)) this.fail(path, `refers to step "${id}" on another branch of the same condition, which never runs before this step`);
    }
  }

  toolStep(walked: WalkedStep, byId: ReadonlyMap<string, WalkedStep>): void {
    const step = walked.step;
    if (!isToolStep(step)) return;
    const found = this.catalog.findTool(step.tool);
    if (found === undefined) this.fail([...walked.path, 'tool'], `no tool "${step.tool}" in any available integration`);
    const strings: Array<{ path: Path; text: string }> = [];
    collectStrings(step.args, [...walked.path, 'args'], strings);
    let templated = false;
    for (const { path, text } of strings) {
      if (!hasTemplate(text)) continue;
      templated = true;
      const template = this.compile(path, text);
      if (template !== null) this.references(path, template, walked, byId);
    }
    // Arguments without any template are known now: check them against the tool's input schema at publish time.
    if (!templated && found !== undefined) {
      const check = this.validator.validate(found.tool.inputSchema, step.args ?? {});
      if (!check.ok) this.fail([...walked.path, 'args'], `do not match the input of "${step.tool}": ${formatIssues(check.issues)}`);
    }
  }

  conditionStep(walked: WalkedStep, byId: ReadonlyMap<string, WalkedStep>): void {
    const step = walked.step;
    if (isToolStep(step)) return;
    const path = [...walked.path, 'if'];
    const template = this.compile(path, step.if.trim());
    if (template === null) return;
    if (template.whole === null) this.fail(path, 'must be a single "{{ … }}" expression');
    else this.references(path, template, walked, byId);
  }
}

/**
 * The definition check for publish/apply time. `def` is `{ inputs, steps, output?, bindings? }` (a manifest flow
 * entry is accepted too: its other fields are ignored). Never evaluates anything: it only parses.
 */
export function validateFlowDefinition(def: unknown, catalog: FlowCatalog, options: ValidateFlowOptions = {}): FlowValidation {
  const parsed = FlowDefinitionSchema.safeParse(def, { error: manifestErrorMap });
  if (!parsed.success) return { ok: false, issues: issuesFromZod(parsed.error.issues) };
  const definition = toFlowDefinition(parsed.data);
  const validator = options.validator ?? createJsonSchemaValidator();
  const checker = new FlowChecker(catalog, validator);

  const inputsCheck = validator.checkSchema(definition.inputs);
  if (!inputsCheck.ok) checker.fail(['inputs'], `is not a usable JSON Schema: ${formatIssues(inputsCheck.issues)}`);

  const walked = walkSteps(definition.steps);
  const byId = new Map<string, WalkedStep>();
  for (const entry of walked) {
    const first = byId.get(entry.step.id);
    if (first !== undefined) checker.fail([...entry.path, 'id'], `duplicate step id "${entry.step.id}" (first at ${formatPath(first.path)})`);
    else byId.set(entry.step.id, entry);
  }
  for (const entry of walked) {
    checker.toolStep(entry, byId);
    checker.conditionStep(entry, byId);
  }

  const outputs: Array<{ path: Path; text: string }> = [];
  collectStrings(definition.output, ['output'], outputs);
  for (const { path, text } of outputs) {
    if (!hasTemplate(text)) continue;
    const template = checker.compile(path, text);
    if (template !== null) checker.references(path, template, null, byId);
  }

  for (const integrationId of Object.keys(definition.bindings)) {
    if (catalog.integration(integrationId) === undefined) checker.fail(['bindings', integrationId], `no integration "${integrationId}"`);
  }
  if (checker.issues.length > 0) return { ok: false, issues: checker.issues };
  return { ok: true, definition, belt: flowBelt(definition) };
}

/** validateFlowDefinition for publish paths: 422 VALIDATION with `details.findings` (as the agent publish verifier answers). */
export function assertValidFlowDefinition(def: unknown, catalog: FlowCatalog, options: ValidateFlowOptions = {}): Extract<FlowValidation, { ok: true }> {
  const result = validateFlowDefinition(def, catalog, options);
  if (result.ok) return result;
  throw new AppError('VALIDATION', 'The flow definition has problems.', { findings: result.issues.map((issue) => ({ message: issue.message, path: issue.path })) }, { status: 422 });
}
