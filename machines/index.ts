// Re-exports each pure state machine module by name (each holds MACHINE_VERSION and SPEC_ROWS, hence namespaces).
export * as agentRevision from './agent-revision.machine.js';
export * as sessionTurn from './session-turn.machine.js';
export * as triggerFiring from './trigger-firing.machine.js';
export * as idempotencyClaim from './idempotency-claim.machine.js';
export * as provisioningClaim from './provisioning-claim.machine.js';
export type { SpecRowTransition, ExtensionTransition, SpecTableRow } from './spec-row.js';
export { listTransitions, listStateNodes, initialPath, statePath, ROOT_PATH, type DefinedTransition } from './introspect.js';
export { MACHINE_CATALOG, type CatalogEntry } from './catalog.js';
