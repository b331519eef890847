// The OpenAPI document's shared parts: security schemes, response headers and the one error envelope.
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../../runtime/errors.js';

export const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'Personal API key sv_…' },
  userToken: { type: 'http', scheme: 'bearer', description: 'Short-lived user token svu_…' },
  cookie: { type: 'apiKey', in: 'cookie', name: 'service_session', description: 'Console session cookie' },
  partnerKey: { type: 'http', scheme: 'bearer', description: 'Partner key svp_…' },
  lease: { type: 'http', scheme: 'bearer', description: 'Leased token svt_…' },
} as const;

export type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;

/** Every error code, in catalog order: the one table is runtime/errors.ts. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** SPEC "Errors": the one failure body. `code` is closed: a client can switch on it exhaustively. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).describe('Error code (docs/errors.md lists each with its status and meaning).'),
      message: z.string().describe('Human-readable; never quotes submitted values, secrets or internal causes.'),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });

/** Response headers a route may name in its doc; each is one component under components/headers. */
export const RESPONSE_HEADERS = {
  'Retry-After': { description: 'Seconds to wait before retrying (429 RATE_LIMITED, 409 IDEMPOTENCY_IN_PROGRESS).', schema: { type: 'integer', minimum: 0 } },
  'Idempotency-Replayed': { description: 'Present (true) when the answer is the stored replay of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
  Location: { description: 'URL of the created resource.', schema: { type: 'string' } },
  'Set-Cookie': { description: 'The service_session console cookie (HttpOnly, SameSite=Lax; cleared with Max-Age=0).', schema: { type: 'string' } },
  Allow: { description: 'The methods this path answers (405 METHOD_NOT_ALLOWED).', schema: { type: 'string' } },
  'X-Request-Id': { description: 'The request id, also in the service log line of this request.', schema: { type: 'string' } },
  'Content-Disposition': { description: 'attachment, with the file name (RFC 6266 filename*).', schema: { type: 'string' } },
  'Mcp-Session-Id': { description: 'The MCP session initialize opened: send it on every later request.', schema: { type: 'string' } },
} as const;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** components/headers keys: `Retry-After` -> `RetryAfter`. */
export const headerComponentName = (name: ResponseHeaderName): string => name.replace(/-/g, '');

export function headerComponents(): Record<string, unknown> {
  return Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([name, header]) => [headerComponentName(name as ResponseHeaderName), header]));
}
