// Re-exports the actor runtime: registry + supervisor, its types, failures and boot recovery.
export { createActorRegistry, type ActorRegistryOptions } from './registry.js';
export type { ActorKindHandle, ActorKindOptions, ActorRegistry, ActorStep, MachineMap, MoveOf, SpawnMove, SpawnOptions, TransitionMove } from './registry-types.js';
export { ActorFailureError, describeFailure, type ActorFailure, type ActorFailureReason } from './actor-failure.js';
export { DEFAULT_RESTART_POLICY, type RestartPolicy } from './restart-policy.js';
export { createBootRecovery, type BootRecovery, type BootRecoveryOptions, type RecoveryHandler, type RecoveryOffer, type RecoveryReport } from './recovery.js';
