// Owns the one decision of who a tool call runs as (SPEC "Caller credentials rules" 3-6), plus narrowing and field stripping.
import { hasCallerMaterial, type CallerCredentialEntry, type NormalizedCallerCredentials } from './caller-credentials.schema.js';

/** The author's per-integration binding on a published agent or flow, from least to most strict. */
export const IDENTITY_BINDINGS = ['service', 'caller_preferred', 'caller_required'] as const;
export type IdentityBinding = (typeof IDENTITY_BINDINGS)[number];

export type IdentityDecision =
  | { readonly runAs: 'caller' }
  | { readonly runAs: 'organization' }
  | { readonly refuse: 'CALLER_CREDENTIALS_REQUIRED' };

export interface IdentityDecisionInput {
  readonly binding: IdentityBinding;
  /** The request's entry for this integration; absent when none was supplied (`{}` is normalized to absent). */
  readonly entry?: {
    /** SPEC: default true. `false` means the caller forbids falling back to the organization's credential. */
    readonly fallbackAllowed?: boolean;
    /** Whether the entry carries material (a token or at least one field). */
    readonly credentialSent: boolean;
  };
}

/** One binding as planned at publish time (the spec's belt shape). */
export interface IntegrationBinding {
  readonly integrationId: string;
  readonly identityMode: IdentityBinding;
}

const RUN_AS_CALLER: IdentityDecision = Object.freeze({ runAs: 'caller' });
const RUN_AS_ORGANIZATION: IdentityDecision = Object.freeze({ runAs: 'organization' });
const REFUSE: IdentityDecision = Object.freeze({ refuse: 'CALLER_CREDENTIALS_REQUIRED' });

/**
 * THE decision (rule 5). `service`: the call runs as the organization whatever the request carries; the
 * author chose service identity, so caller material is never delivered there (rule 6 narrows credentials to
 * caller-bound integrations) and `fallbackAllowed` has nothing to fall back from. Caller bindings: a sent
 * credential is used as the caller; with none sent, the stricter side wins: `caller_required` (which a
 * request cannot relax) or `fallbackAllowed: false` refuses, otherwise the organization's credential is used.
 */
export function decideIdentity(input: IdentityDecisionInput): IdentityDecision {
  if (input.binding === 'service') return RUN_AS_ORGANIZATION;
  if (input.entry?.credentialSent === true) return RUN_AS_CALLER;
  const callerRequired = input.binding === 'caller_required' || input.entry?.fallbackAllowed === false;
  return callerRequired ? REFUSE : RUN_AS_ORGANIZATION;
}

/**
 * `decideIdentity` for a validated entry. "Sent" is judged on the entry as the caller supplied it, before
 * undeclared fields are stripped: a misnamed field must not silently turn a caller call into one made with
 * the organization's authority; the call runs as the caller and fails upstream like any rejected material.
 */
export function decideIdentityForEntry(binding: IdentityBinding, entry: CallerCredentialEntry | undefined): IdentityDecision {
  if (entry === undefined) return decideIdentity({ binding });
  return decideIdentity({ binding, entry: { fallbackAllowed: entry.fallbackAllowed, credentialSent: hasCallerMaterial(entry) } });
}

function isCallerBinding(binding: IdentityBinding): boolean {
  return binding === 'caller_preferred' || binding === 'caller_required';
}

const STRICTNESS: Readonly<Record<IdentityBinding, number>> = { service: 0, caller_preferred: 1, caller_required: 2 };

/** Bindings by integration id; should an id repeat, the strictest binding wins (as in rule 5). */
export function bindingsByIntegration(bindings: readonly IntegrationBinding[]): ReadonlyMap<string, IdentityBinding> {
  const byId = new Map<string, IdentityBinding>();
  for (const { integrationId, identityMode } of bindings) {
    const seen = byId.get(integrationId);
    if (seen === undefined || STRICTNESS[identityMode] > STRICTNESS[seen]) byId.set(integrationId, identityMode);
  }
  return byId;
}

export interface NarrowedCredentials {
  /** Only entries for integrations the target binds at caller identity (rule 6; fire rule 5). */
  readonly credentials: NormalizedCallerCredentials;
  /** Supplied entries the target does not bind at caller identity, sorted; ids only, never material. */
  readonly unusedIntegrationIds: readonly string[];
}

export function narrowCredentials(credentials: NormalizedCallerCredentials, bindings: readonly IntegrationBinding[]): NarrowedCredentials {
  const byId = bindingsByIntegration(bindings);
  const kept: [string, CallerCredentialEntry][] = [];
  const unused: string[] = [];
  for (const [integrationId, entry] of Object.entries(credentials.integrations)) {
    const binding = byId.get(integrationId);
    if (binding !== undefined && isCallerBinding(binding)) kept.push([integrationId, entry]);
    else unused.push(integrationId);
  }
  return { credentials: { integrations: Object.fromEntries(kept) }, unusedIntegrationIds: unused.sort() };
}

export interface TargetIdentityPlan {
  /** Decision per bound integration id. */
  readonly decisions: ReadonlyMap<string, IdentityDecision>;
  /** Integrations whose decision is a refusal, sorted: a non-empty list means the target must not start (fire rule 4, rule 6). */
  readonly refusedIntegrationIds: readonly string[];
}

/** Applies `decideIdentityForEntry` to every binding of a target, for the start-time check on fire and conversation routes. */
export function planTargetIdentities(bindings: readonly IntegrationBinding[], credentials: NormalizedCallerCredentials): TargetIdentityPlan {
  const decisions = new Map<string, IdentityDecision>();
  const refused: string[] = [];
  for (const [integrationId, binding] of bindingsByIntegration(bindings)) {
    const entry = isCallerBinding(binding) ? credentials.integrations[integrationId] : undefined;
    const decision = decideIdentityForEntry(binding, entry);
    decisions.set(integrationId, decision);
    if ('refuse' in decision) refused.push(integrationId);
  }
  return { decisions, refusedIntegrationIds: refused.sort() };
}

export interface StrippedEntry {
  readonly entry: CallerCredentialEntry;
  /** Names removed because the integration does not declare them (safe to log: names, not values). */
  readonly removedFieldNames: readonly string[];
}

/**
 * Rule 3: field names the integration does not declare are removed before invocation. If none remain,
 * `fields` is omitted (an empty `fields` object is never produced); the token and `fallbackAllowed` stay.
 */
export function stripUndeclaredFields(entry: CallerCredentialEntry, declaredFieldNames: Iterable<string>): StrippedEntry {
  if (entry.fields === undefined) return { entry, removedFieldNames: [] };
  const declared = new Set(declaredFieldNames);
  const kept: [string, string][] = [];
  const removed: string[] = [];
  for (const [name, value] of Object.entries(entry.fields)) {
    if (declared.has(name)) kept.push([name, value]);
    else removed.push(name);
  }
  const { fields: _dropped, ...rest } = entry;
  return {
    entry: kept.length > 0 ? { ...rest, fields: Object.fromEntries(kept) } : rest,
    removedFieldNames: removed.sort(),
  };
}
