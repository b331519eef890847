// The provisioning request: the body as validated before any claim, and its logical fingerprint (headers: http/request-headers.ts).
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { canonicalJson } from '../manifest/canonical-json.js';

/** Bounds we chose where the spec is silent (docs/decisions.md "Provisioning request fields"). */
export const PROVISIONING_LIMITS = Object.freeze({ nameMaxLength: 200, emailMaxLength: 320, segmentMaxLength: 255 });

const name = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(PROVISIONING_LIMITS.nameMaxLength, `${field} must be at most ${PROVISIONING_LIMITS.nameMaxLength} characters`);

/**
 * Strict: an unknown field is a malformed body (400 before any claim). `clientSegment` is only capped here; its
 * URL-segment rules are the named refusal CLIENT_SEGMENT_INVALID, which releases the claim (SPEC Errors).
 */
export const provisioningBodySchema = z.strictObject({
  clientName: name('clientName'),
  clientSegment: z
    .string({ error: 'clientSegment must be a string' })
    .max(PROVISIONING_LIMITS.segmentMaxLength, `clientSegment must be at most ${PROVISIONING_LIMITS.segmentMaxLength} characters`),
  directLoginDisabled: z.boolean({ error: 'directLoginDisabled must be a boolean' }).default(false),
  ownerEmail: z
    .email({ error: 'ownerEmail must be an email address' })
    .max(PROVISIONING_LIMITS.emailMaxLength, `ownerEmail must be at most ${PROVISIONING_LIMITS.emailMaxLength} characters`),
  ownerName: name('ownerName'),
  /** Absent: the template's domainName, else "General". */
  domainName: name('domainName').optional(),
});

export type ProvisioningBody = z.output<typeof provisioningBodySchema>;

/**
 * Rule 2, "byte-equivalent logical request": the JSON value as sent (after it validated), encoded with sorted keys.
 * Whitespace and key order do not matter; any value difference, or a field present in one and absent in the
 * other, does. SHA-256 suffices: the body carries no secret (unlike fire's caller credentials).
 */
export function provisioningFingerprint(rawBody: unknown): string {
  return createHash('sha256').update(canonicalJson(rawBody)).digest('hex');
}
