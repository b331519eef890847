// The fire request as the spec writes it: body schema (unknown fields stripped) and the Idempotency-Key pattern.
import * as z from 'zod';
import { callerCredentialExpiresAtSchema, callerCredentialsSchema } from '../vault/index.js';

/** SPEC Limits: 1–128 characters of letters, digits, `.`, `_`, `:`, `-`. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const KEY_RULE = 'must be 1-128 characters of letters, digits, ".", "_", ":" or "-"';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `z.object` strips unknown keys (SPEC Endpoints: `/triggers/fire` strips unrelated unknown body fields).
 * `input` is checked to be an object but kept as parsed, not rebuilt by a record schema, so a Flow gets it
 * verbatim (rule 2) and the fingerprint sees exactly what was sent. `callerCredentials` stays strict (its own rule).
 */
export const fireBodySchema = z.object({
  triggerId: z.uuid({ error: 'triggerId must be a UUID' }),
  input: z
    .custom<Record<string, unknown>>(isPlainObject, { error: 'input must be a JSON object' })
    .meta({ type: 'object', description: 'Default {}. A Flow receives it verbatim; an Agent receives input.prompt, else the payload as text.' })
    .optional()
    .transform((input) => input ?? {}),
  callerCredentials: callerCredentialsSchema.optional(),
  callerCredentialExpiresAt: callerCredentialExpiresAtSchema.optional(),
  idempotencyKey: z.string().regex(IDEMPOTENCY_KEY_PATTERN, { error: `idempotencyKey ${KEY_RULE}` }).optional(),
});

export type FireBody = z.output<typeof fireBodySchema>;
