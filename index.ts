// The package entry: the embedding API.
export { createService } from './http/service.js';
export type { CreateServiceOptions, Service } from './http/service.js';
export { ManualClock, systemClock } from './runtime/clock.js';
export type { Clock } from './runtime/clock.js';
export { DEFAULT_CONFIG, configFromEnv } from './runtime/config.js';
export type { ServiceConfig } from './runtime/config.js';
export { AppError } from './runtime/errors.js';
export type { NodeRequestHandler } from './http/node-server.js';
