// The list of every machine with its version and spec table, for the spec-table proof and the generated diagrams.
import type { AnyStateMachine } from 'xstate';
import * as agentRevision from './agent-revision.machine.js';
import * as idempotencyClaim from './idempotency-claim.machine.js';
import * as provisioningClaim from './provisioning-claim.machine.js';
import * as sessionTurn from './session-turn.machine.js';
import type { SpecTableRow } from './spec-row.js';
import * as triggerFiring from './trigger-firing.machine.js';

export interface CatalogEntry {
  /** Basename of the module: machines/<name>.machine.ts; equals the machine id. */
  readonly name: string;
  readonly machine: AnyStateMachine;
  readonly version: number;
  readonly specRows: readonly SpecTableRow[];
}

const entry = (machine: AnyStateMachine, version: number, specRows: readonly SpecTableRow[]): CatalogEntry => ({
  name: machine.id,
  machine,
  version,
  specRows,
});

/** In the order of spec "States and transitions". */
export const MACHINE_CATALOG: readonly CatalogEntry[] = [
  entry(agentRevision.agentRevisionMachine, agentRevision.MACHINE_VERSION, agentRevision.SPEC_ROWS),
  entry(sessionTurn.sessionTurnMachine, sessionTurn.MACHINE_VERSION, sessionTurn.SPEC_ROWS),
  entry(triggerFiring.triggerFiringMachine, triggerFiring.MACHINE_VERSION, triggerFiring.SPEC_ROWS),
  entry(idempotencyClaim.idempotencyClaimMachine, idempotencyClaim.MACHINE_VERSION, idempotencyClaim.SPEC_ROWS),
  entry(provisioningClaim.provisioningClaimMachine, provisioningClaim.MACHINE_VERSION, provisioningClaim.SPEC_ROWS),
];
