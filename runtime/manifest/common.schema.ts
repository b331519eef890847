// Owns the small building blocks every manifest section shares: refs, roles, binding policies, bounded text.
import * as z from 'zod';
import { IDENTITY_BINDINGS } from '../vault/identity-policy.js';

/** A manifest-local name for an entity; `apply` prints each ref's id. */
export const RefSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be letters, digits, ".", "_" or "-", starting with a letter or digit');

export const OrgRoleSchema = z.enum(['owner', 'admin', 'member']);
export const DomainRoleSchema = z.enum(['owner', 'editor', 'operator', 'viewer']);
/** Per-integration binding policy of an agent or flow (DESIGN "Domain model"). */
export const BindingPolicySchema = z.enum(IDENTITY_BINDINGS);

/** Trimmed, nonempty, at most `max` characters: names and titles. */
export const nameSchema = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

/** Refs listed in an array must not repeat: a repeated subscriber or member is almost always a typo. */
export function uniqueRefs<T extends z.ZodType<string>>(item: T, what: string) {
  return z.array(item).superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((value, index) => {
      if (seen.has(value)) ctx.addIssue({ code: 'custom', path: [index], message: `duplicate ${what} "${value}"` });
      seen.add(value);
    });
  });
}
