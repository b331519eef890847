// Owns the declarative integration definition (catalog entry: auth, tools with HTTP mapping, event types).
import * as z from 'zod';
import { ObjectJsonSchemaSchema } from './json-value.schema.js';

/** Bounds shared with the caller-credential rules (SPEC "Limits") and approvalTools (tool names 1–100). */
export const INTEGRATION_LIMITS = Object.freeze({
  idMaxLength: 64,
  toolNameMaxLength: 100,
  nameMaxLength: 200,
  descriptionMaxLength: 10_000,
  fieldsMaxEntries: 16,
  toolsMaxEntries: 500,
  eventsMaxEntries: 200,
});

const INTEGRATION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const TOOL_WIRE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9][A-Za-z0-9_-]*$/;
// RFC 9110 token: the characters allowed in a header name.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_NAME = /^[A-Za-z0-9_]+$/;
const PATH_PARAM = /\{([A-Za-z0-9_]+)\}/g;

export const IntegrationIdSchema = z
  .string()
  .min(1)
  .max(INTEGRATION_LIMITS.idMaxLength)
  .regex(INTEGRATION_ID, 'must be letters, digits, "_" or "-", starting with a letter or digit');

const HeaderNameSchema = z.string().min(1).max(256).regex(HEADER_NAME, 'must be a valid HTTP header name');

export const IntegrationAuthSchema = z.strictObject({
  /** Where a bearer-style token goes: `<header>: <scheme> <token>` (scheme omitted = raw token). */
  token: z
    .strictObject({
      header: HeaderNameSchema,
      scheme: z.string().min(1).max(64).regex(/^[^\s]+$/, 'must not contain whitespace').optional(),
    })
    .optional(),
  /** Named secret fields, each sent in its own header. */
  fields: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(64).regex(FIELD_NAME, 'must be ASCII letters, digits or "_"'),
        header: HeaderNameSchema,
      }),
    )
    .max(INTEGRATION_LIMITS.fieldsMaxEntries)
    .optional(),
});

export const ToolRequestSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  /** Path appended to baseUrl; `{param}` placeholders are filled from (and consume) the tool arguments. */
  path: z.string().min(1).max(2_000).regex(/^\//, 'must start with "/"'),
  /** 'rest': arguments not used in the path are the JSON body; 'args': all arguments are the body. */
  body: z.enum(['rest', 'args']).optional(),
  /** Argument names sent as query-string parameters instead of in the body. */
  query: z.array(z.string().min(1).max(100)).max(100).optional(),
});

export const ToolDefinitionSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(INTEGRATION_LIMITS.toolNameMaxLength)
      .regex(TOOL_WIRE_ID, 'must be a tool wire id "integration.tool"'),
    description: z.string().max(INTEGRATION_LIMITS.descriptionMaxLength),
    readonly: z.boolean(),
    request: ToolRequestSchema,
    inputSchema: ObjectJsonSchemaSchema,
  })
  .superRefine((tool, ctx) => {
    const declared = tool.inputSchema.properties ?? {};
    for (const match of tool.request.path.matchAll(PATH_PARAM)) {
      const param = match[1]!;
      if (!Object.hasOwn(declared, param)) {
        ctx.addIssue({
          code: 'custom',
          path: ['request', 'path'],
          message: `placeholder {${param}} is not a property of inputSchema`,
        });
      }
    }
    for (const [i, name] of (tool.request.query ?? []).entries()) {
      if (!Object.hasOwn(declared, name)) {
        ctx.addIssue({ code: 'custom', path: ['request', 'query', i], message: `"${name}" is not a property of inputSchema` });
      }
    }
  });

export const EventDefinitionSchema = z.strictObject({
  /** Adapter-native event type, e.g. `contact.created`. */
  type: z.string().min(1).max(200),
  /** Dotted payload paths an event filter may name. */
  payloadPaths: z.array(z.string().min(1).max(500)).max(500),
  /** How deliveries are signed; absent = unsigned deliveries. */
  signature: z.strictObject({ scheme: z.enum(['standard-webhooks']) }).optional(),
});

export const IntegrationDefinitionSchema = z
  .strictObject({
    id: IntegrationIdSchema,
    name: z.string().trim().min(1).max(INTEGRATION_LIMITS.nameMaxLength),
    description: z.string().max(INTEGRATION_LIMITS.descriptionMaxLength),
    baseUrl: z.url({ protocol: /^https?$/ }),
    auth: IntegrationAuthSchema.optional(),
    tools: z.array(ToolDefinitionSchema).max(INTEGRATION_LIMITS.toolsMaxEntries),
    events: z.array(EventDefinitionSchema).max(INTEGRATION_LIMITS.eventsMaxEntries).optional(),
  })
  .superRefine((integration, ctx) => {
    const seenTools = new Set<string>();
    for (const [i, tool] of integration.tools.entries()) {
      const prefix = tool.name.slice(0, tool.name.indexOf('.'));
      if (prefix !== integration.id) {
        ctx.addIssue({
          code: 'custom',
          path: ['tools', i, 'name'],
          message: `must start with the integration id "${integration.id}."`,
        });
      }
      if (seenTools.has(tool.name)) {
        ctx.addIssue({ code: 'custom', path: ['tools', i, 'name'], message: `duplicate tool "${tool.name}"` });
      }
      seenTools.add(tool.name);
    }
    const seenEvents = new Set<string>();
    for (const [i, event] of (integration.events ?? []).entries()) {
      if (seenEvents.has(event.type)) {
        ctx.addIssue({ code: 'custom', path: ['events', i, 'type'], message: `duplicate event type "${event.type}"` });
      }
      seenEvents.add(event.type);
    }
    const seenFields = new Set<string>();
    for (const [i, field] of (integration.auth?.fields ?? []).entries()) {
      if (seenFields.has(field.name)) {
        ctx.addIssue({ code: 'custom', path: ['auth', 'fields', i, 'name'], message: `duplicate field "${field.name}"` });
      }
      seenFields.add(field.name);
    }
  });

export type IntegrationDefinition = z.infer<typeof IntegrationDefinitionSchema>;
export type IntegrationAuth = z.infer<typeof IntegrationAuthSchema>;
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;
export type ToolRequest = z.infer<typeof ToolRequestSchema>;
export type EventDefinition = z.infer<typeof EventDefinitionSchema>;
