// Owns the dependencies a flow run is built from (plain objects; no module-level state).
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { CallerGrants } from '../turns/caller-grants.js';
import type { JsonSchemaValidator } from '../tools/json-schema-validator.js';
import type { KeyRing } from '../vault/index.js';
import type { FlowToolExecutor } from './flow-tool-executor.js';
import type { FlowTrail } from './flow-trail.js';
import type { FlowVersions } from './flow-versions.js';
import type { FlowCatalog } from './validate-flow.js';

export interface FlowRunnerDeps {
  readonly store: Pick<Storage, 'repos' | 'writer'>;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'error'>;
  readonly trail: FlowTrail;
  readonly versions: FlowVersions;
  readonly executor: FlowToolExecutor;
  readonly validator: JsonSchemaValidator;
  /** Opens the run's caller grant at call time (and only then). */
  readonly grants: CallerGrants;
  /** Opens the organization's connection secrets. */
  readonly keyRing: KeyRing;
  /** The tools the organization can use (read per run: integrations may change between runs). */
  catalogFor(orgId: string): Promise<FlowCatalog>;
}
