// Re-exports the flow runtime (definition checks, templates, engine, run approvals) by name.
export { ExpressionSyntaxError, tokenize, type Token, type TokenKind } from './expression-lexer.js';
export { MAX_EXPRESSION_DEPTH, parseExpression, stepReferences, type BinaryOperator, type Expression, type PathSegment } from './expression-parser.js';
export { evaluate, jsonEqual, readPath, truthy, type FlowScope } from './expression-eval.js';
export { TemplateCache, TemplateSyntaxError, compileTemplate, hasTemplate, renderCompiled, textOf, type CompiledTemplate, type TemplatePart } from './template.js';
export {
  FlowDefinitionSchema,
  flowBelt,
  flowDefinitionOfVersion,
  isToolStep,
  mayRunTogether,
  toFlowDefinition,
  walkSteps,
  type ConditionStep,
  type FlowDefinition,
  type FlowStep,
  type ToolStep,
  type WalkedStep,
} from './flow-definition.js';
export { assertValidFlowDefinition, validateFlowDefinition, type FlowCatalog, type FlowIssue, type FlowValidation, type ValidateFlowOptions } from './validate-flow.js';
export { CALLER_FAILURE_CODES, FLOW_FAILURE, type FlowFailureCode, type RecordedFailure } from './flow-errors.js';
export { createFlowVersions, type FlowVersions, type LoadResult, type LoadedFlow } from './flow-versions.js';
export { createFlowToolExecutor, type FlowToolCall, type FlowToolExecutor, type FlowToolExecutorDeps } from './flow-tool-executor.js';
export { createFlowTrail, type CallSpec, type FlowTrail, type FlowTrailDeps, type RunRef, type TrailUnit } from './flow-trail.js';
export type { FlowRunnerDeps } from './flow-runner-deps.js';
export { runFlowExecution } from './flow-runner.js';
export { createFlowEngine, type FlowEngine, type FlowEngineDeps } from './flow-engine.js';
export { APPROVAL_COMMENT_MAX, createRunApprovals, type RunApprovalAnswer, type RunApprovalDeps, type RunApprovalRequest, type RunApprovals } from './run-approval.js';
export { registerFlows, type FlowsRuntime, type FlowsRuntimeDeps } from './flows.runtime.js';
