// Owns how builtin:procedure reads a tool's arguments from a user message: a JSON object, else `key: value` lines.

type Json = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const KEY_PREFIX = /^\s*[-*]?\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*:\s*$/;

/**
 * The first balanced `{...}` in the text that parses as a JSON object: the whole message when it is
 * JSON, or one embedded in prose ("Look up {"id": "c-1"} please"). An object that is the value of a
 * `key: value` line whose key is a field (`meta: {"k": 1}` when `meta` is declared) belongs to that
 * line, not to the message; `Details: {"id": "c-1"}` still counts as the message's object.
 */
export function findJsonObject(text: string, isField: (key: string) => boolean = () => false): Json | undefined {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    const key = KEY_PREFIX.exec(text.slice(text.lastIndexOf('\n', start - 1) + 1, start))?.[1];
    if (key !== undefined && isField(key)) {
      start = end; // skip the field's value whole, nested objects included
      continue;
    }
    try {
      const value: unknown = JSON.parse(text.slice(start, end + 1));
      if (isPlainObject(value)) return value;
    } catch {
      // Not JSON (e.g. "{name}" in prose): try the next brace.
    }
  }
  return undefined;
}

/** Index of the brace closing the one at `start`, skipping braces inside JSON strings; -1 if unclosed. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth += 1;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** `key: value` lines, in order; keys are identifiers (`customer_id`, `email`), values trimmed. */
export function keyValueLines(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*[-*]?\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*:\s*(.*?)\s*$/.exec(line);
    if (match && match[2] !== '') pairs.push([match[1], match[2]]);
  }
  return pairs;
}

function schemaProperties(inputSchema: Json): Record<string, Json> {
  return isPlainObject(inputSchema.properties) ? (inputSchema.properties as Record<string, Json>) : {};
}

function declaredTypes(property: Json): string[] {
  const type = property.type;
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : typeof type === 'string' ? [type] : [];
}

/** A `key: value` line is text; the property's declared type says how to read it. Unreadable stays text (the tool validates). */
function coerce(raw: string, property: Json): unknown {
  const types = declaredTypes(property);
  const parsed = (() => {
    try {
      return { value: JSON.parse(raw) as unknown };
    } catch {
      return undefined;
    }
  })();
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) {
    const n = Number(raw);
    if (!types.includes('integer') || Number.isInteger(n) || types.includes('number')) return n;
  }
  if (types.includes('boolean') && /^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
  if (types.includes('object') && isPlainObject(parsed?.value)) return parsed.value;
  if (types.includes('array') && Array.isArray(parsed?.value)) return parsed.value;
  if (typeof parsed?.value === 'string') return parsed.value; // a quoted string: drop the quotes
  return raw;
}

/**
 * Arguments for one tool from the latest user message, keeping only properties its input schema
 * declares (a message that serves several tools carries all their fields). JSON wins over lines.
 * A key matches its property exactly, else ignoring case; an exact match beats a case-folded one.
 */
export function extractToolArgs(message: string, inputSchema: Json): Json {
  const properties = schemaProperties(inputSchema);
  // `__proto__` as a property name would set the prototype of `args`, not a field.
  const names = Object.keys(properties).filter((name) => name !== '__proto__');
  const json = findJsonObject(message, (key) => names.some((name) => name.toLowerCase() === key.toLowerCase()));
  const pairs: Array<[string, unknown]> = json
    ? Object.entries(json)
    : keyValueLines(message).map(([key, raw]) => [key, raw]);
  const read = (name: string, value: unknown) => (json ? value : coerce(value as string, properties[name]));
  const args: Json = {};
  for (const [key, value] of pairs) {
    if (names.includes(key) && !(key in args)) args[key] = read(key, value);
  }
  for (const [key, value] of pairs) {
    const name = names.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    if (name !== undefined && !(name in args)) args[name] = read(name, value);
  }
  return args;
}
