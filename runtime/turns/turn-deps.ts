// What the agent turn engine is built from (plain dependencies; no module-level state).
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { SessionEventBus } from '../events/index.js';
import type { Logger } from '../logger.js';
import type { LanguageModelPort } from '../models/index.js';
import type { HttpIntegrationExecutor, JsonSchemaValidator } from '../tools/index.js';
import type { KeyRing } from '../vault/index.js';
import type { ApprovalDeadlines } from './approval-deadlines.js';
import type { CallerGrants } from './caller-grants.js';
import type { TurnActors } from './turn-actor.js';
import type { Pacer } from '../execution/pacer.js';
import type { BudgetLimits } from './turn-budget.js';
import type { ToolProviderRegistry } from '../tools/tool-providers.js';
import type { CatalogSource } from './turn-tools.js';

export interface TurnDeps {
  store: Pick<Storage, 'repos' | 'writer'>;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn' | 'info'>;
  bus: SessionEventBus;
  turns: TurnActors;
  grants: CallerGrants;
  /** Arms the approval window when a turn suspends. */
  deadlines?: ApprovalDeadlines;
  keyRing: KeyRing;
  providers: ToolProviderRegistry;
  /** The organization's integration catalog (cached while its integrations are unchanged). */
  catalogFor: CatalogSource;
  http: HttpIntegrationExecutor;
  validator: JsonSchemaValidator;
  /** The Setup's model string -> its port; throws ModelError for an unknown or unconfigured provider. */
  resolveModel(model: string): LanguageModelPort;
  limits: BudgetLimits;
  /** Yields to I/O between model steps once the loop's time slice is used up. */
  pacer?: Pacer;
}
