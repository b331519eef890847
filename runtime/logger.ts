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
