// Owns executing one tool call of a declarative integration: arguments -> HTTP request (+ identity) -> tool result.
import type { IntegrationDefinition, ToolDefinition } from '../manifest/integration.schema.js';
import type { ConnectionPools } from './connection-pools.js';
import { sendHttp } from './http-transport.js';
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

/**
 * Who the call runs as, with the material already decided and decrypted (runtime/vault decides `runAs`).
 * Caller material replaces the organization's; the two are never merged (SPEC caller rule 3), so exactly one
 * identity reaches the executor.
 */
export interface ToolIdentity {
  readonly runAs: 'caller' | 'organization';
  readonly token?: string;
  readonly fields?: Readonly<Record<string, string>>;
}

export interface HttpIntegrationCall {
  readonly integration: IntegrationDefinition;
  readonly tool: ToolDefinition;
  readonly args: unknown;
  readonly identity: ToolIdentity;
  /** Cancels the call (turn cancelled); the executor's own timeout is separate. */
  readonly signal?: AbortSignal;
  /**
   * The organization the call runs for. With it, a read-only tool's call may reuse a kept-alive connection of this
   * organization and identity (connection-pools.ts); without it, every call dials a fresh connection.
   */
  readonly orgId?: string;
}

export interface HttpIntegrationExecutorOptions extends CallLimits {
  readonly validator?: JsonSchemaValidator;
  /** Integrations are installed by the operator, so their base URLs may be private (default true). */
  readonly allowPrivateNetworks?: boolean;
  readonly userAgent?: string;
  /** Kept-alive connections for read-only calls; without pools every call dials a fresh connection. */
  readonly pools?: ConnectionPools;
}

export interface HttpIntegrationExecutor {
  execute(call: HttpIntegrationCall): Promise<ToolResult>;
}

/** The request a tool call maps to, before it is sent. Headers hold secrets: never log this object. */
export interface BuiltToolRequest {
  readonly method: ToolDefinition['request']['method'];
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
}

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

function invalid(issues: SchemaIssue[]): ToolFailure {
  return { ok: false, code: 'INVALID_ARGUMENTS', message: `The arguments do not match the tool's input: ${formatIssues(issues)}`, issues };
}

/** Query values: arrays repeat the key, objects travel as JSON, null is omitted. */
function appendQuery(params: URLSearchParams, name: string, value: unknown): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) for (const item of value) appendQuery(params, name, item);
  else params.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
}

function fillPath(template: string, args: Record<string, unknown>, used: Set<string>, issues: SchemaIssue[]): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => {
    used.add(name);
    const value = args[name];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      issues.push({ path: `/${name}`, rule: 'path', message: 'must be a string, number or boolean: it fills the request path' });
      return '';
    }
    const text = String(value);
    // "." and ".." survive encodeURIComponent and would be resolved as path navigation upstream.
    if (text === '' || text === '.' || text === '..') {
      issues.push({ path: `/${name}`, rule: 'path', message: 'must not be empty, "." or "..": it fills one path segment' });
      return '';
    }
    return encodeURIComponent(text);
  });
}

/** Declared auth only: a token without a declared token header, or an undeclared field, is never sent (rule 3). */
function identityHeaders(integration: IntegrationDefinition, identity: ToolIdentity): Record<string, string> {
  const headers: Record<string, string> = {};
  const token = integration.auth?.token;
  if (token !== undefined && identity.token !== undefined) {
    headers[token.header.toLowerCase()] = token.scheme === undefined ? identity.token : `${token.scheme} ${identity.token}`;
  }
  for (const field of integration.auth?.fields ?? []) {
    const value = identity.fields !== undefined && Object.hasOwn(identity.fields, field.name) ? identity.fields[field.name] : undefined;
    if (value !== undefined) headers[field.header.toLowerCase()] = value;
  }
  return headers;
}

/**
 * Maps validated arguments onto the tool's HTTP request. Path placeholders consume their arguments; `query`
 * names go to the query string; GET (and a tool without a body mode) sends the remaining arguments as query
 * parameters; `body: 'rest'` sends the remaining arguments as JSON, `body: 'args'` all of them.
 */
export function buildToolRequest(integration: IntegrationDefinition, tool: ToolDefinition, args: Record<string, unknown>, identity: ToolIdentity, userAgent = DEFAULT_USER_AGENT): BuiltToolRequest | ToolFailure {
  const issues: SchemaIssue[] = [];
  const used = new Set<string>();
  const path = fillPath(tool.request.path, args, used, issues);
  if (issues.length > 0) return invalid(issues);

  const url = new URL(integration.baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  const queryNames = new Set(tool.request.query ?? []);
  const rest = Object.entries(args).filter(([name]) => !used.has(name) && !queryNames.has(name));
  for (const name of queryNames) appendQuery(url.searchParams, name, args[name]);

  const { method } = tool.request;
  const bodyMode = method === 'GET' ? undefined : tool.request.body;
  if (bodyMode === undefined) for (const [name, value] of rest) appendQuery(url.searchParams, name, value);

  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.8', 'user-agent': userAgent };
  let body: Buffer | undefined;
  if (bodyMode !== undefined) {
    body = Buffer.from(JSON.stringify(bodyMode === 'args' ? args : Object.fromEntries(rest)));
    headers['content-type'] = 'application/json';
  }
  // Built from the definition and the identity alone: nothing of the incoming request (its service key
  // included) is in scope here, so nothing of it can travel upstream.
  return { method, url, headers: { ...headers, ...identityHeaders(integration, identity) }, body };
}

function secretsOf(identity: ToolIdentity): string[] {
  return [...(identity.token === undefined ? [] : [identity.token]), ...Object.values(identity.fields ?? {})];
}

function toolFileName(tool: ToolDefinition): string {
  return tool.name.slice(tool.name.indexOf('.') + 1) || 'file';
}

export function createHttpIntegrationExecutor(options: HttpIntegrationExecutorOptions = {}): HttpIntegrationExecutor {
  const validator = options.validator ?? createJsonSchemaValidator();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  return {
    async execute(call) {
      // Validation precedes everything: a call with bad arguments never reaches the upstream.
      const check = validator.validate(call.tool.inputSchema, call.args);
      if (!check.ok) return invalid([...check.issues]);
      if (call.args === null || typeof call.args !== 'object' || Array.isArray(call.args)) {
        return invalid([{ path: '', rule: 'type', message: 'must be an object' }]);
      }
      const built = buildToolRequest(call.integration, call.tool, call.args as Record<string, unknown>, call.identity, options.userAgent);
      if ('ok' in built) return built;

      const limits = callSignal({ ...options, timeoutMs }, call.signal);
      const allowPrivateNetworks = options.allowPrivateNetworks ?? true;
      // Only a read-only tool's call may meet a socket the upstream closed while idle: it alone may be sent again.
      const pooled =
        call.tool.readonly && call.orgId !== undefined && options.pools !== undefined
          ? options.pools.agentFor(built.url.protocol === 'https:' ? 'https:' : 'http:', { orgId: call.orgId, identity: call.identity, allowPrivateNetworks })
          : undefined;
      try {
        const response = await sendHttp({
          url: built.url,
          method: built.method,
          headers: built.headers,
          body: built.body,
          signal: limits.signal,
          maxResponseBytes,
          allowPrivateNetworks,
          ...(pooled === undefined ? {} : { pooled }),
        });
        // Non-2xx is an ordinary failure for either identity: no retry as the organization (SPEC caller rule 8).
        return resultFromResponse(response, { fileName: toolFileName(call.tool), redact: createRedactor(secretsOf(call.identity)) });
      } catch (err) {
        return failureFromTransport(err, limits.timedOut(), timeoutMs);
      }
    },
  };
}
