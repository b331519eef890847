// Re-exports the tool layer (catalog, executors, argument validation, network guard) by name.
export {
  BUILTIN_INTEGRATIONS,
  SEARCH_QUERY_MAX_LENGTH,
  SEARCH_RESULT_LIMIT,
  createToolCatalog,
  type CatalogEntry,
  type FoundTool,
  type IntegrationToolView,
  type IntegrationView,
  type ModelTool,
  type ToolCatalog,
  type ToolCatalogOptions,
} from './catalog.js';
export type { BuiltinIntegration, CatalogTool } from './catalog.types.js';
export {
  HTTP_GET_TOOL,
  HTTP_INTEGRATION,
  HTTP_INTEGRATION_ID,
  HTTP_REQUEST_TOOL,
  createBuiltinHttpExecutor,
  type BuiltinHttpCall,
  type BuiltinHttpExecutor,
  type BuiltinHttpOptions,
} from './builtin-http.integration.js';
export { KNOWLEDGE_INTEGRATION, KNOWLEDGE_INTEGRATION_ID, KNOWLEDGE_SEARCH_TOOL } from './builtin-knowledge.integration.js';
export {
  buildToolRequest,
  createHttpIntegrationExecutor,
  type BuiltToolRequest,
  type HttpIntegrationCall,
  type HttpIntegrationExecutor,
  type HttpIntegrationExecutorOptions,
  type ToolIdentity,
} from './http-integration.executor.js';
export { createConnectionPools, type ConnectionPools, type PoolScope } from './connection-pools.js';
export { TransportError, sendHttp, type TransportFailureKind, type TransportRequest, type TransportResponse } from './http-transport.js';
export { createJsonSchemaValidator, formatIssues, type JsonSchemaValidator, type JsonSchemaValidatorOptions, type SchemaCheck, type SchemaIssue } from './json-schema-validator.js';
export { DESTINATION_REFUSED, DestinationRefusedError, createGuardedLookup, isPrivateAddress, isPrivateIp, type ResolveAll } from './network-guard.js';
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TOOL_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  systemTimeoutSignal,
  type CallLimits,
  type TimeoutSignalFactory,
} from './tool-call-limits.js';
export { createRedactor, interpretBody, resultFromResponse, type ToolFailure, type ToolFailureCode, type ToolFile, type ToolResult, type ToolSuccess } from './tool-result.js';
