// Owns the built-in `http` integration: generic requests an agent addresses by URL, refused on private networks.
import type { BuiltinIntegration, CatalogTool } from './catalog.types.js';
import { sendHttp, type TransportResponse } from './http-transport.js';
import { createJsonSchemaValidator, formatIssues, type JsonSchemaValidator, type SchemaIssue } from './json-schema-validator.js';
import {
  callSignal,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TOOL_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  failureFromTransport,
  type CallLimits,
} from './tool-call-limits.js';
import { createRedactor, resultFromResponse, type ToolFailure, type ToolResult } from './tool-result.js';

export const HTTP_INTEGRATION_ID = 'http';
export const HTTP_REQUEST_TOOL = 'http.request';
export const HTTP_GET_TOOL = 'http.get';

const URL_SCHEMA = { type: 'string', minLength: 1, maxLength: 8_192, format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' };
const HEADERS_SCHEMA = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", maxLength: 256 },
  additionalProperties: { type: 'string', maxLength: 8_192, pattern: '^[^\\r\\n\\u0000]*$' },
};

export const HTTP_INTEGRATION: BuiltinIntegration = Object.freeze({
  id: HTTP_INTEGRATION_ID,
  name: 'HTTP',
  description: 'Generic HTTP requests to public web addresses.',
  tools: Object.freeze<CatalogTool[]>([
    {
      name: HTTP_REQUEST_TOOL,
      description:
        'Send an HTTP request (any method) to a public URL. A string body is sent as text, any other JSON value as JSON. Returns the response body: JSON, text, or a file.',
      readonly: false,
      inputSchema: {
        type: 'object',
        properties: {
          method: { type: 'string', enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] },
          url: URL_SCHEMA,
          headers: HEADERS_SCHEMA,
          body: { description: 'Request body: a string (sent as text) or any JSON value (sent as JSON).' },
        },
        required: ['method', 'url'],
        additionalProperties: false,
      },
    },
    {
      name: HTTP_GET_TOOL,
      description: 'Fetch a public URL with GET. Returns the response body: JSON, text, or a file.',
      readonly: true,
      inputSchema: {
        type: 'object',
        properties: { url: URL_SCHEMA, headers: HEADERS_SCHEMA },
        required: ['url'],
        additionalProperties: false,
      },
    },
  ]),
});

/** Headers the transport owns (framing, routing, connection management): an agent may not set them. */
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect']);
/** Dropped when a redirect leaves the origin, as browsers do for Authorization (and we do for cookies too). */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export interface BuiltinHttpOptions extends CallLimits {
  /** Default false: private, loopback and link-local destinations are refused (tests enable it for 127.0.0.1). */
  readonly allowPrivateNetworks?: boolean;
  /** Redirects followed per call (default 5); every hop passes the network guard again. */
  readonly maxRedirects?: number;
  readonly validator?: JsonSchemaValidator;
  readonly userAgent?: string;
}

export interface BuiltinHttpCall {
  /** `http.request` or `http.get`. */
  readonly toolName: string;
  readonly args: unknown;
  readonly signal?: AbortSignal;
}

export interface BuiltinHttpExecutor {
  execute(call: BuiltinHttpCall): Promise<ToolResult>;
}

interface HttpArgs {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

function invalid(issues: SchemaIssue[]): ToolFailure {
  return { ok: false, code: 'INVALID_ARGUMENTS', message: `The arguments do not match the tool's input: ${formatIssues(issues)}`, issues };
}

const isRedirect = (status: number) => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

function fileNameOf(url: URL): string {
  const last = url.pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last) || 'response';
  } catch {
    return last || 'response';
  }
}

export function createBuiltinHttpExecutor(options: BuiltinHttpOptions = {}): BuiltinHttpExecutor {
  const validator = options.validator ?? createJsonSchemaValidator();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? 5;
  const noRedaction = createRedactor([]);

  function prepare(toolName: string, args: unknown): { method: string; url: URL; headers: Record<string, string>; body?: Buffer } | ToolFailure {
    const tool = HTTP_INTEGRATION.tools.find((t) => t.name === toolName);
    if (tool === undefined) throw new Error(`"${toolName}" is not a tool of the built-in http integration`);
    const check = validator.validate(tool.inputSchema, args);
    if (!check.ok) return invalid([...check.issues]);
    const input = args as HttpArgs;
    const method = toolName === HTTP_GET_TOOL ? 'GET' : input.method!;
    const issues: SchemaIssue[] = [];
    let url: URL | undefined;
    try {
      url = new URL(input.url);
    } catch {
      issues.push({ path: '/url', rule: 'format', message: 'must be an absolute http or https URL' });
    }
    const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.8', 'user-agent': options.userAgent ?? DEFAULT_USER_AGENT };
    for (const [name, value] of Object.entries(input.headers ?? {})) {
      const lower = name.toLowerCase();
      if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith('proxy-')) issues.push({ path: `/headers/${name}`, rule: 'header', message: 'is managed by the service and cannot be set' });
      else headers[lower] = value;
    }
    let body: Buffer | undefined;
    if (input.body !== undefined) {
      if (method === 'GET' || method === 'HEAD') issues.push({ path: '/body', rule: 'body', message: `must be absent for ${method}` });
      const text = typeof input.body === 'string';
      body = Buffer.from(text ? (input.body as string) : JSON.stringify(input.body));
      headers['content-type'] ??= text ? 'text/plain; charset=utf-8' : 'application/json';
    }
    if (issues.length > 0 || url === undefined) return invalid(issues);
    return { method, url, headers, body };
  }

  return {
    async execute(call) {
      const prepared = prepare(call.toolName, call.args);
      if ('ok' in prepared) return prepared;
      let { method, url, headers, body } = prepared;
      const limits = callSignal({ ...options, timeoutMs }, call.signal);
      try {
        let response: TransportResponse;
        for (let hop = 0; ; hop++) {
          response = await sendHttp({
            url,
            method,
            headers,
            body,
            signal: limits.signal,
            maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
            allowPrivateNetworks: options.allowPrivateNetworks ?? false,
          });
          const location = response.headers.location;
          if (!isRedirect(response.status) || location === undefined || hop >= maxRedirects) break;
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            break;
          }
          if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([h]) => !ORIGIN_BOUND_HEADERS.includes(h)));
          // Fetch semantics: 303 (and 301/302 after POST) continue as a GET without the body.
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
            method = method === 'HEAD' ? 'HEAD' : 'GET';
            body = undefined;
            const { 'content-type': _dropped, ...withoutType } = headers;
            headers = withoutType;
          }
          url = next;
        }
        return resultFromResponse(response, { fileName: fileNameOf(url), redact: noRedaction });
      } catch (err) {
        return failureFromTransport(err, limits.timedOut(), timeoutMs);
      }
    },
  };
}
