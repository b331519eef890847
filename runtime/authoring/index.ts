// Re-exports the authoring runtime (SPEC "Authoring") by name.
export { createAuthoringService, type AuthoringDeps, type AuthoringService, type IntegrationAuthoring } from './authoring.service.js';
export { createAgentAuthoring, type AgentAuthoring, type AgentDetail, type AgentSummary, type CreateAgentInput, type PublishResult } from './agents.service.js';
export { EMPTY_SETUP, frozenSetup, type AgentSetup } from './agent-setup.js';
export { MAX_REPORTED, verifySetup, type Finding, type FindingKind, type Span, type VerifyReport, type Warning, type WarningKind } from './procedure-verifier.js';
export { editDistance, nearestName } from './nearest-name.js';
export type { Author } from './authoring-access.js';
