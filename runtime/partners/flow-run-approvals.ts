// The flow runtime's run approvals, bound to the flow engine the dispatcher runs (for POST /worker/approvals/runs/:runId).
import type { Store } from '../../storage/store.js';
import { notFound } from '../errors.js';
import { createRunApprovals, type FlowEngine, type RunApprovals } from '../flows/index.js';
import type { SessionDispatcher } from '../sessions/dispatcher.js';
import type { RunDecider } from './worker-approvals.service.js';

/**
 * Resolved on first use: the flow engine registers with the dispatcher during composition, possibly after the
 * partner runtime is built. Without a flow engine no flow run can be waiting, so a run id is the uniform 404.
 */
export function flowRunApprovals(deps: { store: Pick<Store, 'repos' | 'writer'>; dispatcher: SessionDispatcher }): () => RunDecider {
  let bound: RunApprovals | undefined;
  return () => {
    if (bound !== undefined) return bound;
    const engine = deps.dispatcher.engineFor('flow') as Partial<FlowEngine> | undefined;
    if (engine?.trail === undefined) return { decide: () => Promise.reject(notFound()) };
    bound = createRunApprovals({ store: deps.store, trail: engine.trail, dispatcher: deps.dispatcher });
    return bound;
  };
}
