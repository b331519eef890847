// JSON logs (pino) with credential-bearing fields redacted wherever they might appear.
import pino, { type Logger } from 'pino';

export type { Logger };

export const REDACT_PATHS = [
  'authorization',
  'cookie',
  '*.authorization',
  '*.cookie',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.token',
  '*.password',
  '*.secret',
  '*.callerCredentials',
  'callerCredentials',
];

export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'switchyard' } }, destination);
}

/**
 * The same logger without redaction, for hot lines built only from ids, route patterns, codes and numbers (the
 * access log, fire lines): redaction's wildcard paths cost ~10 µs a line, a third of an authenticated cached read
 * (docs/decisions.md "Request pipeline: where the time went"). Never hand it request data, headers or errors.
 */
export function unredacted(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}
