// Owns an event trigger's eventFilter: which fields it may name (creation) and whether an inbound event matches it.
/*
 * SPEC "Trigger": `field` is actor data, `occurredAt`, or a payload path the adapter catalog declares for the event.
 *   - `occurredAt`: the event's time; compared as epoch ms (a filter value may be an ISO-8601 string or epoch ms).
 *   - `actor` / `actor.<path>`: the event's actor object (adapters do not declare its shape, so any path is allowed).
 *   - anything else must be one of the event type's declared `payloadPaths`, resolved in the event's payload.
 * A field the event does not carry never matches, whatever the operator (`not-equals` included): a filter narrows
 * what fires, so missing data is not evidence for it.
 */
import type { EventDefinition } from '../manifest/integration.schema.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import type { EventFilter } from '../manifest/trigger.schema.js';

/** An inbound event as the filter sees it. */
export interface InboundEvent {
  readonly type: string | null;
  readonly occurredAt: number;
  readonly actor: Record<string, unknown> | null;
  /** The payload the declared paths address. */
  readonly payload: unknown;
}

type FieldKind = { kind: 'occurredAt' } | { kind: 'actor'; path: string[] } | { kind: 'payload'; path: string[] };

function fieldKind(field: string, event: Pick<EventDefinition, 'payloadPaths'>): FieldKind | null {
  if (field === 'occurredAt') return { kind: 'occurredAt' };
  if (field === 'actor') return { kind: 'actor', path: [] };
  if (field.startsWith('actor.')) {
    const path = field.slice('actor.'.length).split('.');
    return path.every((p) => p.length > 0) ? { kind: 'actor', path } : null;
  }
  return event.payloadPaths.includes(field) ? { kind: 'payload', path: field.split('.') } : null;
}

function isoToMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** Creation-time check; issues are `{ path, message }` relative to `eventFilter` and never quote the value. */
export function filterIssues(filter: EventFilter, event: Pick<EventDefinition, 'payloadPaths'>): Array<{ path: string; message: string }> {
  const kind = fieldKind(filter.field, event);
  if (kind === null) {
    return [{ path: 'eventFilter.field', message: 'must be "occurredAt", "actor" or "actor.<path>", or a payload path the event type declares' }];
  }
  const { operator, value } = filter;
  if (operator === '>' || operator === '<') {
    const comparable = kind.kind === 'occurredAt' ? isoToMs(value) !== null : typeof value === 'number';
    if (!comparable) {
      return [{ path: 'eventFilter.value', message: kind.kind === 'occurredAt' ? 'must be an ISO-8601 timestamp or epoch milliseconds' : 'must be a number for ">" and "<"' }];
    }
  }
  if (operator === 'contains' && !['string', 'number', 'boolean'].includes(typeof value)) {
    return [{ path: 'eventFilter.value', message: 'must be a string, number or boolean for "contains"' }];
  }
  if ((operator === 'equals' || operator === 'not-equals') && kind.kind === 'occurredAt' && isoToMs(value) === null) {
    return [{ path: 'eventFilter.value', message: 'must be an ISO-8601 timestamp or epoch milliseconds' }];
  }
  return [];
}

function at(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** True when the event passes the filter (the trigger's subscribers fire). */
export function matchesFilter(filter: EventFilter, eventDefinition: Pick<EventDefinition, 'payloadPaths'>, event: InboundEvent): boolean {
  const kind = fieldKind(filter.field, eventDefinition);
  if (kind === null) return false;
  let actual: unknown;
  let expected: unknown = filter.value;
  if (kind.kind === 'occurredAt') {
    actual = event.occurredAt;
    expected = isoToMs(filter.value);
    if (expected === null) return false;
  } else {
    actual = at(kind.kind === 'actor' ? event.actor : event.payload, kind.path);
  }
  if (actual === undefined) return false;
  switch (filter.operator) {
    case 'equals':
      return same(actual, expected);
    case 'not-equals':
      return !same(actual, expected);
    case '>':
      return typeof actual === 'number' && typeof expected === 'number' && actual > expected;
    case '<':
      return typeof actual === 'number' && typeof expected === 'number' && actual < expected;
    case 'contains':
      if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
      if (Array.isArray(actual)) return actual.some((item) => same(item, expected));
      return false;
  }
}
