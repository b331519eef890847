// The runtime services every route handler receives; built once per service instance.
import type { Store } from '../storage/store.js';
import type { TokenBuckets } from './rate-limit.js';
import type { Authenticator } from './auth/authenticator.js';
import type { SignInService } from './auth/sign-in.js';
import type { Clock } from './clock.js';
import type { ServiceConfig } from './config.js';
import type { Logger } from './logger.js';
import type { KeyRing } from './vault/index.js';

export interface CoreServices {
  config: ServiceConfig;
  clock: Clock;
  logger: Logger;
  store: Store;
  auth: Authenticator;
  /** Master keys that wrap every sealed secret (caller grants, connection secrets). */
  keyRing: KeyRing;
  signIn: SignInService;
  keyLimiter: TokenBuckets;
  /** False while booting or shutting down: /readyz answers 503. */
  ready: () => boolean;
}

export type Services = CoreServices;
