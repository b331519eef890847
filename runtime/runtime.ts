// Builds the runtime services over one store: the composition root below the HTTP layer.
import type { Store } from '../storage/store.js';
import { createAuthenticator } from './auth/authenticator.js';
import { createSignInService } from './auth/sign-in.js';
import type { Clock } from './clock.js';
import type { ServiceConfig } from './config.js';
import type { Logger } from './logger.js';
import { TokenBuckets } from './rate-limit.js';
import type { Services } from './services.js';
import type { KeyRing } from './vault/index.js';

export interface RuntimeDeps {
  config: ServiceConfig;
  clock: Clock;
  logger: Logger;
  store: Store;
  keyRing: KeyRing;
}

export interface Runtime {
  services: Services;
  /** Boot recovery and background loops; called once the store is open. */
  start(): Promise<void>;
  /** Stops background loops; in-flight units of work are flushed by the store. */
  stop(): Promise<void>;
}

export function createRuntime(deps: RuntimeDeps): Runtime {
  const { config, clock, logger, store, keyRing } = deps;
  const auth = createAuthenticator(store, clock);
  let ready = false;
  const services: Services = {
    config,
    clock,
    logger,
    store,
    auth,
    keyRing,
    signIn: createSignInService({ store, clock, auth, sessionTtlMs: config.consoleSessionTtlMs }),
    keyLimiter: new TokenBuckets(config.keyRateLimit, clock),
    ready: () => ready,
  };
  return {
    services,
    async start() {
      ready = true;
    },
    async stop() {
      ready = false;
    },
  };
}
