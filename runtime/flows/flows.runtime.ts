// Composes the flow runtime on the turns runtime's dispatcher: the 'flow' engine and run approvals.
import type { SessionDispatcher } from '../turns/dispatcher.js';
import { createFlowEngine, type FlowEngine, type FlowEngineDeps } from './flow-engine.js';
import { createRunApprovals, type RunApprovals } from './run-approval.js';

export interface FlowsRuntimeDeps extends FlowEngineDeps {
  /** The turns runtime's dispatcher: flow runs queue, run and recover at boot with every other session. */
  readonly dispatcher: Pick<SessionDispatcher, 'registerEngine' | 'dispatch'>;
}

export interface FlowsRuntime {
  readonly engine: FlowEngine;
  /** For the partner worker route `POST /worker/approvals/runs/:runId`. */
  readonly runApprovals: RunApprovals;
}

/** Registers the flow engine for automation kind 'flow' (once per dispatcher) and builds run approvals over it. */
export function registerFlows(deps: FlowsRuntimeDeps): FlowsRuntime {
  const engine = createFlowEngine(deps);
  deps.dispatcher.registerEngine('flow', engine);
  return { engine, runApprovals: createRunApprovals({ store: deps.store, trail: engine.trail, dispatcher: deps.dispatcher }) };
}
