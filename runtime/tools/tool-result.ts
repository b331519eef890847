// Owns the outcome of one tool call and how an upstream HTTP answer becomes output, files or an ordinary failure.
import { STATUS_CODES } from 'node:http';
import type { SchemaIssue } from './json-schema-validator.js';
import type { TransportResponse } from './http-transport.js';

export interface ToolFile {
  readonly name: string;
  readonly mediaType: string;
  readonly content: Buffer;
}

export interface ToolSuccess {
  readonly ok: true;
  /** Upstream HTTP status (2xx). */
  readonly status: number;
  /** Parsed JSON, text, null for an empty body, or `{ file: { name, mediaType, sizeBytes } }` for a file. */
  readonly output: unknown;
  readonly files: readonly ToolFile[];
}

export type ToolFailure =
  | { readonly ok: false; readonly code: 'INVALID_ARGUMENTS'; readonly message: string; readonly issues: readonly SchemaIssue[] }
  | { readonly ok: false; readonly code: 'UPSTREAM_ERROR'; readonly status: number; readonly message: string; readonly detail?: unknown }
  | {
      readonly ok: false;
      readonly code: 'UPSTREAM_UNAVAILABLE' | 'TOOL_TIMEOUT' | 'TOOL_CANCELLED' | 'RESPONSE_TOO_LARGE' | 'DESTINATION_REFUSED';
      readonly message: string;
    };

export type ToolResult = ToolSuccess | ToolFailure;
export type ToolFailureCode = ToolFailure['code'];

/** Failure detail kept for the model: enough to correct a call, bounded so an error page cannot flood a turn. */
const DETAIL_MAX_CHARS = 2_000;
/** Shorter secrets are not redacted: replacing every "ab" would destroy the output and hide nothing. */
const REDACT_MIN_LENGTH = 4;
const REDACTED = '[redacted]';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Replaces every occurrence of the identity's secret values (an upstream may echo a token back). */
export function createRedactor(secrets: Iterable<string>): (text: string) => string {
  const values = [...new Set(secrets)].filter((s) => s.length >= REDACT_MIN_LENGTH).sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => values.reduce((acc, secret) => acc.split(secret).join(REDACTED), text);
}

function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactDeep(v, redact)]));
  }
  return value;
}

function contentTypeOf(response: TransportResponse): { essence: string; charset: string } {
  const raw = response.headers['content-type'] ?? '';
  const [essence = '', ...params] = raw.split(';');
  const charset = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  return { essence: essence.trim().toLowerCase(), charset: charset || 'utf-8' };
}

const isJsonType = (t: string) => t === 'application/json' || t.endsWith('+json');
const isTextType = (t: string) =>
  t.startsWith('text/') || t.endsWith('+xml') || ['application/xml', 'application/javascript', 'application/x-www-form-urlencoded', 'application/yaml'].includes(t);

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** A file name, never a path: the name is shown to users and may become a download name. */
function safeFileName(name: string, fallback: string): string {
  const base = name.split(/[\\/]/).pop()?.replace(/[\u0000-\u001f]/g, '').trim() ?? '';
  return (base === '' || base === '.' || base === '..' ? fallback : base).slice(0, 255);
}

function fileNameFrom(response: TransportResponse, fallback: string): string {
  const disposition = response.headers['content-disposition'] ?? '';
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  let name = fallback;
  if (match) {
    try {
      name = decodeURIComponent(match[1]!);
    } catch {
      name = match[1]!;
    }
  }
  return safeFileName(name, fallback);
}

/**
 * The file convention for JSON answers: `{ "file": { "name", "mediaType", "base64" } }` (other top-level keys
 * allowed). The bytes become a ToolFile; the output keeps `{ file: { name, mediaType, sizeBytes } }`.
 */
function extractJsonFile(parsed: unknown): { output: unknown; files: ToolFile[] } | undefined {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const file = (parsed as { file?: unknown }).file;
  if (file === null || typeof file !== 'object') return undefined;
  const { name, mediaType, base64 } = file as Record<string, unknown>;
  if (typeof name !== 'string' || typeof mediaType !== 'string' || typeof base64 !== 'string' || !BASE64.test(base64)) return undefined;
  const content = Buffer.from(base64, 'base64');
  const safeName = safeFileName(name, 'file');
  return {
    output: { ...(parsed as Record<string, unknown>), file: { name: safeName, mediaType, sizeBytes: content.byteLength } },
    files: [{ name: safeName, mediaType, content }],
  };
}

/** Turns a response body into output and files (JSON, text, or a file for any other content type). */
export function interpretBody(response: TransportResponse, options: { fileName: string; redact: (text: string) => string }): { output: unknown; files: ToolFile[] } {
  if (response.body.byteLength === 0) return { output: null, files: [] };
  const { essence, charset } = contentTypeOf(response);
  if (isJsonType(essence)) {
    const text = decode(response.body, charset);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { output: options.redact(text), files: [] };
    }
    const withFile = extractJsonFile(parsed);
    if (withFile) return { output: redactDeep(withFile.output, options.redact), files: withFile.files };
    return { output: redactDeep(parsed, options.redact), files: [] };
  }
  if (isTextType(essence)) return { output: options.redact(decode(response.body, charset)), files: [] };
  if (essence === '') {
    // No declared type: valid UTF-8 reads as text, anything else is kept as bytes.
    try {
      return { output: options.redact(new TextDecoder('utf-8', { fatal: true }).decode(response.body)), files: [] };
    } catch {
      /* binary: falls through to a file */
    }
  }
  const name = fileNameFrom(response, options.fileName);
  const mediaType = essence || 'application/octet-stream';
  return { output: { file: { name, mediaType, sizeBytes: response.body.byteLength } }, files: [{ name, mediaType, content: response.body }] };
}

function boundedDetail(output: unknown): unknown {
  if (typeof output === 'string') return output.length > DETAIL_MAX_CHARS ? `${output.slice(0, DETAIL_MAX_CHARS)}…` : output;
  const json = JSON.stringify(output);
  return json !== undefined && json.length > DETAIL_MAX_CHARS ? `${json.slice(0, DETAIL_MAX_CHARS)}…` : output;
}

/** 2xx -> success; anything else (3xx included: redirects are not followed) -> an ordinary UPSTREAM_ERROR. */
export function resultFromResponse(response: TransportResponse, options: { fileName: string; redact: (text: string) => string }): ToolResult {
  const { output, files } = interpretBody(response, options);
  if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status, output, files };
  const reason = STATUS_CODES[response.status] ?? 'Unknown status';
  const failure = { ok: false as const, code: 'UPSTREAM_ERROR' as const, status: response.status, message: `The upstream service answered ${response.status} ${reason}.` };
  return output === null ? failure : { ...failure, detail: boundedDetail(output) };
}
