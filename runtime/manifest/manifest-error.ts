// Owns ManifestError and the translation of schema issues into "<JSON path>: <message>" lines; never echoes values.
import type * as z from 'zod';
import { AppError } from '../errors.js';

export interface ManifestIssue {
  /** JSON path in the manifest, e.g. `organizations[0].agents[1].setup.model`; `(root)` for the whole document. */
  readonly path: string;
  readonly message: string;
}

const MAX_LISTED = 20;

/** A manifest that was refused; nothing of it was applied. `issues` lists every problem found. */
export class ManifestError extends AppError {
  readonly issues: readonly ManifestIssue[];

  constructor(issues: readonly ManifestIssue[], source?: string) {
    const head = source === undefined ? 'invalid workspace manifest' : `invalid workspace manifest ${source}`;
    const lines = issues.slice(0, MAX_LISTED).map((issue) => `${issue.path}: ${issue.message}`);
    if (issues.length > MAX_LISTED) lines.push(`… and ${issues.length - MAX_LISTED} more`);
    const message = issues.length === 1 ? `${head}: ${lines[0]}` : `${head}, ${issues.length} problems:\n  ${lines.join('\n  ')}`;
    super('VALIDATION', message, { issues: issues.map((issue) => ({ path: issue.path, message: issue.message })) });
    this.name = 'ManifestError';
    this.issues = issues;
  }
}

export const isManifestError = (error: unknown): error is ManifestError => error instanceof ManifestError;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `['organizations', 0, 'agents', 1, 'setup']` -> `organizations[0].agents[1].setup`; odd keys are quoted. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out === '' ? '(root)' : out;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function sizeMessage(issue: { origin: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean }, small: boolean): string {
  const bound = Number(small ? issue.minimum : issue.maximum);
  const strict = issue.inclusive === false;
  switch (issue.origin) {
    case 'string':
      if (small && bound === 1) return 'must not be empty';
      return small ? `must be at least ${bound} characters` : `must be at most ${bound} characters`;
    case 'array':
    case 'set':
      if (small && bound === 1) return 'must not be empty';
      return small ? `must have at least ${bound} entries` : `must have at most ${bound} entries`;
    default:
      if (small) return strict ? `must be greater than ${bound}` : `must be at least ${bound}`;
      return strict ? `must be less than ${bound}` : `must be at most ${bound}`;
  }
}

/**
 * Per-parse error map: wording for the issues zod words generically. Schema-level messages (written beside
 * the rule) win over this. It reads `input` only to tell "missing" from "wrong type", never to print it.
 */
export const manifestErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return sizeMessage(issue, true);
    case 'too_big':
      return sizeMessage(issue, false);
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has an invalid format' : `must be a valid ${issue.format}`;
    case 'invalid_union':
      if (issue.note === 'No matching discriminator' && Array.isArray(issue.options)) {
        return `must be one of ${issue.options.map((v) => JSON.stringify(v)).join(', ')}`;
      }
      return 'matches none of the allowed shapes';
    default:
      return undefined;
  }
};

type RawIssue = z.core.$ZodIssue;

const weight = (issues: readonly RawIssue[]): number =>
  issues.reduce((sum, issue) => sum + (issue.code === 'unrecognized_keys' ? issue.keys.length : 1), 0);

/** Flattens zod issues: one line per unknown key, and for a failed union the branch that came closest. */
export function issuesFromZod(issues: readonly RawIssue[], prefix: readonly PropertyKey[] = []): ManifestIssue[] {
  const out: ManifestIssue[] = [];
  for (const issue of issues) {
    const at = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: formatPath([...at, key]), message: 'is not a known field' });
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const closest = issue.errors.reduce((best, branch) => (weight(branch) < weight(best) ? branch : best));
      out.push(...issuesFromZod(closest, at));
    } else {
      out.push({ path: formatPath(at), message: issue.message });
    }
  }
  return out;
}
