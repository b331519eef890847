// The clientSegment rules: a lowercase URL path segment that names a customer (SPEC "Partner resources").

/** Bounds of a valid segment; the request schema only caps the raw string so rule failures stay a named refusal. */
export const CLIENT_SEGMENT_RULES = Object.freeze({ minLength: 2, maxLength: 63 });

/** Lowercase letters and digits in hyphen-separated words: safe in a URL path and a DNS label, no escaping. */
const SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Segments our own URLs (or common infrastructure names) use: a customer named so would shadow them. */
const RESERVED: ReadonlySet<string> = new Set([
  'api', 'app', 'admin', 'auth', 'console', 'docs', 'healthz', 'login', 'logout', 'mcp', 'metrics', 'partner',
  'readyz', 'static', 'status', 'support', 'www',
]);

export type SegmentProblem = 'length' | 'characters' | 'reserved';

/** Null when `segment` is a valid clientSegment; otherwise which rule it breaks (never echoing the value). */
export function clientSegmentProblem(segment: string): SegmentProblem | null {
  if (segment.length < CLIENT_SEGMENT_RULES.minLength || segment.length > CLIENT_SEGMENT_RULES.maxLength) return 'length';
  if (!SEGMENT.test(segment)) return 'characters';
  if (RESERVED.has(segment)) return 'reserved';
  return null;
}

export const CLIENT_SEGMENT_HINT =
  `clientSegment must be ${CLIENT_SEGMENT_RULES.minLength}-${CLIENT_SEGMENT_RULES.maxLength} lowercase letters, digits and single hyphens, ` +
  'starting and ending with a letter or digit, and not a reserved word';
