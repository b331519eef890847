// Re-exports the actor runtime: the durable step, the registry, its types, failures and boot recovery.
export { createActorRegistry, type ActorRegistryOptions } from './registry.js';
export type { ActorKindHandle, ActorKindOptions, ActorRegistry, ActorStep, MachineMap, MoveOf, SnapshotRepos, SpawnMove, SpawnOptions, StepEffects, StepUnit, TransitionMove } from './registry-types.js';
export { ActorFailureError, describeFailure, type ActorFailure, type ActorFailureReason } from './actor-failure.js';
export { durableMachine, type DurableMachine, type DurableStep } from './durable-step.js';
export { createBootRecovery, type BootRecovery, type BootRecoveryOptions, type RecoveryHandler, type RecoveryOffer, type RecoveryReport } from './recovery.js';
