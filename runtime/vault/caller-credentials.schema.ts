// Owns the wire shape of `callerCredentials` (SPEC "Caller credentials object", "Limits") and its canonical form.
import * as z from 'zod';

/** SPEC Limits: integration id 1–64 chars; token and field values 1–8,192 chars; 1–16 fields. */
export const CALLER_CREDENTIAL_LIMITS = Object.freeze({
  integrationIdMaxLength: 64,
  secretMaxLength: 8192,
  fieldsMinEntries: 1,
  fieldsMaxEntries: 16,
  fieldNameMaxLength: 64,
});

const FIELD_NAME_PATTERN = /^[A-Za-z0-9_]{1,64}$/;
const NO_NEWLINE = /^[^\r\n]*$/;

// zod's record parser silently skips an own `__proto__` key (it cannot be assigned to a plain object
// without replacing its prototype). The spec says unknown keys are rejected, not stripped, so such a key
// is refused explicitly here instead of vanishing together with whatever unvalidated value it carried.
function rejectProtoKey<T extends z.ZodType>(record: T, what: string) {
  // Typing the callback's input keeps z.input<> of the schema precise (preprocess otherwise makes it unknown).
  return z.preprocess((value: z.input<T>, ctx) => {
    if (value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, '__proto__')) {
      ctx.addIssue({ code: 'custom', message: `"__proto__" is not allowed as ${what}`, input: undefined });
    }
    return value;
  }, record);
}

// Messages describe the rule only; an offending value is never interpolated (secrets must not reach error bodies).
function secretString(label: string) {
  const max = CALLER_CREDENTIAL_LIMITS.secretMaxLength;
  return z
    .string({ error: `${label} must be a string` })
    .min(1, { error: `${label} must be 1-${max} characters` })
    .max(max, { error: `${label} must be 1-${max} characters` })
    // A regex (not a refine) so the rule also appears in the generated JSON Schema.
    .regex(NO_NEWLINE, { error: `${label} must not contain a newline` });
}

const integrationIdSchema = z
  .string()
  .min(1, { error: `integration id must be 1-${CALLER_CREDENTIAL_LIMITS.integrationIdMaxLength} characters` })
  .max(CALLER_CREDENTIAL_LIMITS.integrationIdMaxLength, {
    error: `integration id must be 1-${CALLER_CREDENTIAL_LIMITS.integrationIdMaxLength} characters`,
  });

const fieldNameSchema = z.string().regex(FIELD_NAME_PATTERN, {
  error: 'field name must be 1-64 ASCII letters, digits or "_"',
});

const fieldsSchema = rejectProtoKey(
  z
    .record(fieldNameSchema, secretString('field value'), { error: 'fields must be an object' })
    .refine(
      (fields) => {
        const count = Object.keys(fields).length;
        return count >= CALLER_CREDENTIAL_LIMITS.fieldsMinEntries && count <= CALLER_CREDENTIAL_LIMITS.fieldsMaxEntries;
      },
      { error: `fields must have ${CALLER_CREDENTIAL_LIMITS.fieldsMinEntries}-${CALLER_CREDENTIAL_LIMITS.fieldsMaxEntries} entries` },
    )
    .meta({ minProperties: CALLER_CREDENTIAL_LIMITS.fieldsMinEntries, maxProperties: CALLER_CREDENTIAL_LIMITS.fieldsMaxEntries }),
  'a field name',
);

export const callerCredentialEntrySchema = z.strictObject(
  {
    token: secretString('token').optional(),
    fields: fieldsSchema.optional(),
    // SPEC: default true. Applied at parse time so every consumer sees a boolean.
    fallbackAllowed: z.boolean({ error: 'fallbackAllowed must be a boolean' }).default(true),
  },
  { error: 'integration entry must be an object' },
);

export const callerCredentialsSchema = z.strictObject(
  {
    integrations: rejectProtoKey(
      z.record(integrationIdSchema, callerCredentialEntrySchema, {
        error: (issue) =>
          issue.input === undefined ? 'integrations is required when callerCredentials is present' : 'integrations must be an object',
      }),
      'an integration id',
    ),
  },
  { error: 'callerCredentials must be an object' },
);

/** Optional sibling of `callerCredentials` on fire: an ISO-8601 timestamp with `Z` or a numeric offset. */
export const callerCredentialExpiresAtSchema = z.iso.datetime({
  offset: true,
  error: 'callerCredentialExpiresAt must be an ISO-8601 timestamp with a time zone (Z or ±hh:mm)',
});

export type CallerCredentialEntry = z.output<typeof callerCredentialEntrySchema>;
export type CallerCredentials = z.output<typeof callerCredentialsSchema>;
export type CallerCredentialsInput = z.input<typeof callerCredentialsSchema>;

/** A validated, canonical credentials object: no entry equal to omission, keys sorted. */
export interface NormalizedCallerCredentials {
  readonly integrations: Readonly<Record<string, CallerCredentialEntry>>;
}

/** True when the entry carries material (a token or at least one field), not only a policy flag. */
export function hasCallerMaterial(entry: CallerCredentialEntry | undefined): boolean {
  return entry !== undefined && (entry.token !== undefined || (entry.fields !== undefined && Object.keys(entry.fields).length > 0));
}

function sortedRecord<V>(record: Readonly<Record<string, V>>, map: (value: V) => V): Record<string, V> {
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, map(record[key])]),
  );
}

/**
 * SPEC rule 4: `{}` equals omission. An entry with no material and `fallbackAllowed: true` (the default)
 * changes no decision, so it is dropped; `{ fallbackAllowed: false }` is kept because it forbids fallback.
 * Keys are sorted so equal requests serialize identically (idempotency comparison, sealing).
 */
export function normalizeCallerCredentials(credentials: CallerCredentials | NormalizedCallerCredentials): NormalizedCallerCredentials {
  const kept = Object.fromEntries(
    Object.entries(credentials.integrations).filter(([, entry]) => hasCallerMaterial(entry) || entry.fallbackAllowed === false),
  );
  return {
    // Fixed property order (token, fields, fallbackAllowed) keeps the JSON form canonical.
    integrations: sortedRecord(kept, (entry) => ({
        ...(entry.token !== undefined ? { token: entry.token } : {}),
        ...(entry.fields !== undefined ? { fields: sortedRecord(entry.fields, (value) => value) } : {}),
        fallbackAllowed: entry.fallbackAllowed,
    })),
  };
}
