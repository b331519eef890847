// Composes the partner API: credentials, provisioning (claims, onboarding, activation), leases, workers, entitlements, support, worker approvals.
import type { Storage } from '../../storage/port/storage.js';
import type { ActorRegistry } from '../actors/index.js';
import type { SignInService } from '../auth/sign-in.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Scheduler } from '../scheduler/index.js';
import type { KeyRing } from '../vault/index.js';
import { createActivationService, type ActivationService } from './activation.service.js';
import { createEntitlementsService, type EntitlementsService } from './entitlements.js';
import { createLeasesService, type LeasesService } from './leases.service.js';
import { createPartnerAuthenticator, type PartnerAuthenticator } from './partner-credentials.js';
import { createProvisioningClaims } from './provisioning-claims.js';
import { createProvisioningService, type ProvisioningService } from './provisioning.service.js';
import { createSupportGrantsService, type SupportGrantsService } from './support-grants.service.js';
import { createWorkerApprovalsService, type RunDecider, type TurnDecider, type WorkerApprovalsService } from './worker-approvals.service.js';
import { createWorkersService, type WorkersService } from './workers.service.js';

export interface PartnersRuntimeDeps {
  store: Storage;
  clock: Clock;
  logger: Logger;
  keyRing: KeyRing;
  registry: ActorRegistry;
  scheduler: Scheduler;
  signIn: SignInService;
  /** Turn approvals (the sessions runtime's approval service). */
  turnApprovals: TurnDecider;
  /** Run approvals (the flow runtime's). */
  runApprovals: RunDecider;
}

export interface PartnersRuntime {
  readonly auth: PartnerAuthenticator;
  readonly provisioning: ProvisioningService;
  readonly activation: ActivationService;
  readonly leases: LeasesService;
  readonly workers: WorkersService;
  readonly entitlements: EntitlementsService;
  readonly supportGrants: SupportGrantsService;
  readonly workerApprovals: WorkerApprovalsService;
}

export function createPartnersRuntime(deps: PartnersRuntimeDeps): PartnersRuntime {
  const { store, clock, logger } = deps;
  const claims = createProvisioningClaims({ store, clock, registry: deps.registry, scheduler: deps.scheduler, logger });
  return {
    auth: createPartnerAuthenticator(store, clock),
    provisioning: createProvisioningService({ store, clock, keyRing: deps.keyRing, logger, claims }),
    activation: createActivationService({ store, clock, signIn: deps.signIn }),
    leases: createLeasesService({ store, clock }),
    workers: createWorkersService({ store, clock }),
    entitlements: createEntitlementsService({ store, clock }),
    supportGrants: createSupportGrantsService({ store, clock }),
    workerApprovals: createWorkerApprovalsService({ store, turns: deps.turnApprovals, runs: deps.runApprovals }),
  };
}
