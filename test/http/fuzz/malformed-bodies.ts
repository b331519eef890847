// fast-check arbitraries for malformed request bodies: deep nesting, wrong types, huge strings, bad UTF-8, wrong media types.
import fc from 'fast-check';
import { keyPaths, skeleton } from './schema-skeleton.js';

export interface MalformedBody {
  kind: string;
  contentType: string | undefined;
  body: Buffer;
}

/** Keys that trip code treating a parsed object as a map (prototype members) or as a bounded name. */
const trickyKeys = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'a'.repeat(300), '\u0000', '💥');

/** Mostly JSON (so bodies reach parsing), sometimes a wrong or missing media type. */
const contentTypes = fc.oneof(
  { arbitrary: fc.constantFrom<string | undefined>('application/json', 'application/json; charset=utf-8', 'application/merge-patch+json'), weight: 6 },
  { arbitrary: fc.constantFrom<string | undefined>('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', undefined), weight: 1 },
);

const json = (text: string) => Buffer.from(text, 'utf8');

/** A body that fast-check reports in one line (kind, media type, size, head) instead of every byte. */
function malformed(kind: string, contentType: string | undefined, body: Buffer): MalformedBody {
  const head = body.subarray(0, 120).toString('utf8');
  return { kind, contentType, body, [fc.toStringMethod]: () => `${kind} ${contentType ?? '(no content-type)'} ${body.length} B: ${head}` } as MalformedBody;
}
const object = (entries: Array<[string, string]>) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

/** Nested arrays or objects, `depth` levels, around a scalar. */
/** Past the default limit, around the old stack overflow (~5,000 levels in JSON.stringify), and far beyond it. */
const depths = fc.oneof(fc.constantFrom(65, 2_000, 5_000, 20_000), fc.integer({ min: 65, max: 6_000 }));

function nest(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A poison for one field of an otherwise plausible body (JSON text). */
const poison = fc.oneof(
  { arbitrary: fc.tuple(depths, fc.constantFrom<'array' | 'object'>('array', 'object')).map(([depth, shape]) => nest(depth, shape)), weight: 3 },
  fc.tuple(depths, fc.constantFrom<'array' | 'object'>('array', 'object')).map(([depth, shape]) => nest(depth, shape)),
  fc.integer({ min: 10_000, max: 200_000 }).map((length) => `"${'x'.repeat(length)}"`),
  fc.constantFrom('1e400', '123456789012345678901234567890', '-0', 'null', 'true', '[]', '{}', '""', '"not-a-uuid"'),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.array(fc.tuple(trickyKeys, fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? 'null')), { minLength: 1, maxLength: 3 }).map(object),
);

/** `value` as JSON text with the field at `path` replaced by the poison text (intermediate objects created). */
function poisoned(value: unknown, path: string[], text: string): string {
  const marker = '\u0000poison\u0000';
  const copy = structuredClone(value) as Record<string, any>;
  let at = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof at[key] !== 'object' || at[key] === null || Array.isArray(at[key])) at[key] = {};
    at = at[key];
  }
  at[path[path.length - 1]!] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), text);
}

const plausibleBody = (schema: Record<string, any> | undefined, ids: Record<string, string[]>): fc.Arbitrary<unknown> =>
  schema === undefined ? fc.constant<unknown>({ type: 'contact.created', data: {} }) : skeleton(schema, ids);

/** Paths holding `{}` in a skeleton: free-form objects (`input`, `data`), where any JSON passes the schema. */
function freeFormPaths(value: unknown): string[][] {
  return keyPaths(value).filter((path) => {
    const at = path.reduce<any>((inner, key) => inner?.[key], value);
    return typeof at === 'object' && at !== null && !Array.isArray(at) && Object.keys(at).length === 0;
  });
}

/**
 * Fixed examples every run includes: a plausible body with each free-form field (and each generic name) nested
 * 5,000 deep: the shape that once passed validation and overflowed JSON.stringify into a 500.
 */
export function deepExamples(schema: Record<string, any> | undefined, ids: Record<string, string[]>): MalformedBody[] {
  const [value] = fc.sample(plausibleBody(schema, ids), { numRuns: 1, seed: 42 });
  const paths = [...freeFormPaths(value), ...['input', 'data', 'value'].map((name) => [name])];
  return paths.map((path) => malformed(`deep ${path.join('.')}`, 'application/json', json(poisoned(value, path, nest(5_000, 'array')))));
}

/**
 * A malformed body for a route with JSON Schema `schema` (none: generic field names). `ids` maps property names to
 * real ids so a plausible body reaches what runs after validation, where a poisoned free-form field used to fail.
 */
export function malformedBody(schema: Record<string, any> | undefined, ids: Record<string, string[]>): fc.Arbitrary<MalformedBody> {
  const fields = Object.keys(schema?.properties ?? {});
  const generic = ['input', 'data', 'value', 'message', 'type'];
  const field = fc.constantFrom(...(fields.length > 0 ? fields : generic));
  const plausible = plausibleBody(schema, ids).chain((value) => {
    const paths = [...keyPaths(value), ...generic.map((name) => [name])];
    const freeForm = freeFormPaths(value);
    const path = freeForm.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...freeForm), weight: 2 }, { arbitrary: fc.constantFrom(...paths), weight: 1 }) : fc.constantFrom(...paths);
    return fc.tuple(path, poison).map(([at, text]) => poisoned(value, at, text));
  });
  const wellFormedField = fc.oneof(field, trickyKeys);
  const shapes = {
    plausible,
    deep: fc
      .tuple(fc.integer({ min: 65, max: 6_000 }), fc.constantFrom<'array' | 'object'>('array', 'object'), fc.option(field))
      .map(([depth, shape, inField]) => (inField === null ? nest(depth, shape) : object([[inField, nest(depth, shape)]]))),
    wrongTypes: fc
      .array(fc.tuple(wellFormedField, fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null')), { maxLength: 8 })
      .map((entries) => object(entries)),
    hugeString: fc
      .tuple(field, fc.integer({ min: 10_000, max: 900_000 }), fc.constantFrom('x', 'é', '\\n', '"', '😀'))
      .map(([name, length, unit]) => object([[name, `"${(unit === '"' ? '\\"' : unit).repeat(Math.floor(length / 4))}"`]])),
    hugeNumber: fc
      .tuple(field, fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '-0', '0.0000000000000000000001', '9007199254740993'))
      .map(([name, value]) => object([[name, value]])),
    randomJson: fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? 'null'),
    randomText: fc.string({ maxLength: 200, unit: 'binary' }),
    truncated: fc
      .tuple(fc.array(fc.tuple(field, fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null')), { minLength: 1, maxLength: 4 }), fc.nat())
      .map(([entries, cut]) => {
        const text = object(entries);
        return text.slice(0, cut % text.length);
      }),
    empty: fc.constantFrom('', ' ', '\n', 'null', '[]', '{}', '""', '0'),
  };
  const textual = fc.oneof(
    // The plausible-body poisons weigh most: they reach past validation, where the nesting 500 lived.
    ...Object.entries(shapes).map(([kind, arbitrary]) => ({ arbitrary: (arbitrary as fc.Arbitrary<string>).map((text) => ({ kind, text })), weight: kind === 'plausible' ? 12 : 1 })),
  );
  const fromText = fc.tuple(textual, contentTypes).map(([{ kind, text }, contentType]) => malformed(kind, contentType, json(text)));
  // Bytes that are not UTF-8 (lone continuation bytes, overlong forms, an encoded surrogate) inside a JSON string.
  const invalidUtf8 = fc
    .tuple(field, fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => bytes.map((b) => 0x80 | b)), fc.constantFrom(
      [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff, 0xfe], [0xf4, 0x90, 0x80, 0x80],
    ), contentTypes)
    .map(([name, noise, fixed, contentType]) =>
      malformed('invalidUtf8', contentType, Buffer.concat([json(`{${JSON.stringify(name)}:"`), Buffer.from(fixed), Buffer.from(noise), json('"}')])),
    );
  return fc.oneof({ arbitrary: fromText, weight: 8 }, { arbitrary: invalidUtf8, weight: 1 });
}
