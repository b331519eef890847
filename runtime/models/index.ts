// Re-exports the model layer (port, resolution, configuration, builtin model, errors) by name.
export type {
  ConversationMessage,
  FinishReason,
  KnowledgeSnippet,
  LanguageModelPort,
  StepChunk,
  StepInput,
  SystemContext,
  TokenUsage,
  ToolCallRequest,
  ToolResult,
  ToolSpec,
} from './model.js';
export { ModelError, isModelError, type ModelErrorInfo, type ModelErrorReason } from './model-error.js';
export { BUILTIN_PROCEDURE_MODEL, endpointEnvName, parseModelString, type ModelRef } from './model-string.js';
export {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_MAX_RETRIES,
  DEFAULT_OPENAI_BASE_URL,
  loadModelConfig,
  type ModelConfig,
  type OpenAIApi,
} from './model-config.js';
export { resolveModel } from './resolve-model.js';
export { KNOWLEDGE_SEARCH_TOOL, createBuiltinProcedureModel, planProcedureStep } from './builtin-procedure.model.js';
export { procedureToolReferences } from './procedure-refs.js';
export { renderSystemPrompt } from './system-prompt.js';
