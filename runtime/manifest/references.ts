// Owns the manifest's cross-reference rules: every ref names something that exists, nothing is declared twice.
import type { AgentManifest, TemplateAgentManifest } from './agent.schema.js';
import type { FlowManifest, FlowStep, TemplateFlowManifest } from './flow.schema.js';
import { procedureToolReferences } from '../models/procedure-refs.js';
import { TemplateSyntaxError, compileTemplate } from '../flows/template.js';
import { BUILTIN_INTEGRATIONS, type BuiltinIntegration } from '../tools/catalog.js';
import { createJsonSchemaValidator, formatIssues } from '../tools/json-schema-validator.js';
import { integrationOfTool } from './belt.js';
import type { IntegrationDefinition } from './integration.schema.js';
import { formatPath, type ManifestIssue } from './manifest-error.js';
import type { OrganizationManifest } from './organization.schema.js';
import type { PartnerManifest } from './partner.schema.js';
import type { WorkspaceManifest } from './workspace.schema.js';

/** Integrations a manifest may name besides its own. */
export interface KnownIntegrations {
  /** Shipped with the service: their ids are reserved (default: the tool catalog's built-ins). */
  readonly builtins?: readonly BuiltinIntegration[];
  /** Already in the catalog (applied earlier): a manifest may name them, or declare them again to update them. */
  readonly applied?: readonly IntegrationDefinition[];
}

type AnyIntegration = IntegrationDefinition | BuiltinIntegration;
const authOf = (integration: AnyIntegration) => ('auth' in integration ? integration.auth : undefined);
const eventsOf = (integration: AnyIntegration) => ('events' in integration ? integration.events : undefined);

type Path = readonly (string | number)[];


const schemas = createJsonSchemaValidator();

class Checker {
  readonly issues: ManifestIssue[] = [];
  readonly integrations = new Map<string, AnyIntegration>();
  readonly tools = new Set<string>();

  fail(path: Path, message: string): void {
    this.issues.push({ path: formatPath(path), message });
  }

  addIntegration(definition: AnyIntegration): void {
    const previous = this.integrations.get(definition.id);
    for (const tool of previous?.tools ?? []) this.tools.delete(tool.name);
    this.integrations.set(definition.id, definition);
    for (const tool of definition.tools) this.tools.add(tool.name);
  }

  /** The document compiles as a JSON Schema (tool inputs, flow inputs), so calls can be validated against it. */
  jsonSchema(path: Path, schema: object): void {
    const check = schemas.checkSchema(schema);
    if (!check.ok) this.fail(path, `is not a valid JSON Schema: ${formatIssues(check.issues)}`);
  }

  /** Each binding names a known integration. */
  bindings(path: Path, bindings: Readonly<Record<string, string>> | undefined): void {
    for (const integrationId of Object.keys(bindings ?? {})) {
      if (!this.integrations.has(integrationId)) this.fail([...path, 'bindings', integrationId], `no integration "${integrationId}"`);
    }
  }

  /** Setup rules that hold wherever an agent is declared. */
  agentSetup(path: Path, agent: AgentManifest | TemplateAgentManifest): void {
    this.bindings(path, agent.bindings);
    const bound = new Set(Object.keys(agent.bindings ?? {}));
    agent.setup.approvalTools.forEach((tool, k) => {
      const at = [...path, 'setup', 'approvalTools', k];
      if (!this.tools.has(tool)) this.fail(at, `no tool "${tool}" in any known integration`);
      else if (!bound.has(integrationOfTool(tool))) this.fail(at, `"${tool}" is not a tool of an integration this agent binds`);
    });
    // Publishing runs the verifier; an unknown `#tool` would make the published revision unusable.
    if (agent.publish) {
      for (const tool of procedureToolReferences(agent.setup.procedure)) {
        if (!this.tools.has(tool)) this.fail([...path, 'setup', 'procedure'], `references unknown tool "#${tool}"`);
      }
    }
  }

  flowGraph(path: Path, flow: FlowManifest | TemplateFlowManifest): void {
    this.bindings(path, flow.bindings);
    this.jsonSchema([...path, 'inputs'], flow.inputs);
    // Document order: a template may read the steps written before it (the output reads any step).
    const ids = new Map<string, string>();
    const templates = (value: unknown, at: Path, visible: ReadonlySet<string>): void => {
      const found: Array<{ path: Path; text: string }> = [];
      collectStrings(value, at, found);
      for (const { path: where, text } of found) this.template(where, text, visible);
    };
    const walk = (steps: readonly FlowStep[], at: Path): void => {
      steps.forEach((step, k) => {
        const stepPath = [...at, k];
        const before = new Set(ids.keys());
        const first = ids.get(step.id);
        if (first !== undefined) this.fail([...stepPath, 'id'], `duplicate step id "${step.id}" (first at ${first})`);
        else ids.set(step.id, formatPath(stepPath));
        if ('tool' in step) {
          if (!this.tools.has(step.tool)) this.fail([...stepPath, 'tool'], `no tool "${step.tool}" in any known integration`);
          templates(step.args, [...stepPath, 'args'], before);
        } else {
          templates(step.if, [...stepPath, 'if'], before);
          walk(step.then, [...stepPath, 'then']);
          if (step.else !== undefined) walk(step.else, [...stepPath, 'else']);
        }
      });
    };
    walk(flow.steps, [...path, 'steps']);
    templates(flow.output, [...path, 'output'], new Set(ids.keys()));
  }

  /** A `{{ … }}` template compiles (flow expression grammar) and reads only steps visible from where it is. */
  template(path: Path, text: string, visible: ReadonlySet<string>): void {
    try {
      for (const step of compileTemplate(text).references) {
        if (!visible.has(step)) this.fail(path, `reads step "${step}", which is not an earlier step of this flow`);
      }
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      this.fail(path, `template error at character ${error.at}: ${error.message}`);
    }
  }
}

function collectStrings(value: unknown, path: Path, out: Array<{ path: Path; text: string }>): void {
  if (typeof value === 'string') out.push({ path, text: value });
  else if (Array.isArray(value)) value.forEach((item, i) => collectStrings(item, [...path, i], out));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) collectStrings(item, [...path, key], out);
  }
}

function checkOrganization(c: Checker, org: OrganizationManifest, P: Path): void {
  const users = new Map(org.users.map((u) => [u.ref, u]));
  const domains = new Map(org.domains.map((d) => [d.ref, d]));
  const connections = new Map(org.connections.map((x) => [x.ref, x]));
  const modules = new Map(org.knowledge.modules.map((m) => [m.ref, m]));
  const automations = new Set([...org.agents.map((a) => a.ref), ...org.flows.map((f) => f.ref)]);
  const articles = new Map(org.knowledge.bases.flatMap((base) => base.articles.map((article) => [article.ref, { article, base }] as const)));
  const needDomain = (path: Path, ref: string | undefined): void => {
    if (ref !== undefined && !domains.has(ref)) c.fail(path, `no domain "${ref}" in this organization`);
  };

  org.domains.forEach((domain, d) => {
    const seen = new Set<string>();
    domain.members.forEach((member, k) => {
      const at = [...P, 'domains', d, 'members', k, 'user'];
      if (!users.has(member.user)) c.fail(at, `no user "${member.user}" in this organization`);
      else if (seen.has(member.user)) c.fail(at, `duplicate member "${member.user}"`);
      seen.add(member.user);
    });
    domain.approvalPolicy?.approvers.forEach((approver, k) => {
      if (!users.has(approver)) c.fail([...P, 'domains', d, 'approvalPolicy', 'approvers', k], `no user "${approver}" in this organization`);
    });
  });

  org.connections.forEach((connection, k) => {
    const at = [...P, 'connections', k];
    needDomain([...at, 'domain'], connection.domain);
    const integration = c.integrations.get(connection.integration);
    if (integration === undefined) return c.fail([...at, 'integration'], `no integration "${connection.integration}"`);
    if (connection.secret?.token !== undefined && authOf(integration)?.token === undefined) {
      c.fail([...at, 'secret', 'token'], `integration "${integration.id}" takes no token`);
    }
    const declared = new Set((authOf(integration)?.fields ?? []).map((f) => f.name));
    for (const field of Object.keys(connection.secret?.fields ?? {})) {
      if (!declared.has(field)) c.fail([...at, 'secret', 'fields', field], `integration "${integration.id}" declares no field "${field}"`);
    }
  });

  org.agents.forEach((agent, k) => {
    const at = [...P, 'agents', k];
    needDomain([...at, 'domain'], agent.domain);
    c.agentSetup(at, agent);
    agent.knowledge?.modules?.forEach((ref, m) => {
      const module = modules.get(ref);
      const where = [...at, 'knowledge', 'modules', m];
      if (module === undefined) c.fail(where, `no knowledge module "${ref}" in this organization`);
      else if (module.kind === 'domain' && module.domain !== agent.domain) c.fail(where, `module "${ref}" belongs to another domain`);
    });
  });

  org.flows.forEach((flow, k) => {
    needDomain([...P, 'flows', k, 'domain'], flow.domain);
    c.flowGraph([...P, 'flows', k], flow);
  });

  org.triggers.forEach((trigger, k) => {
    const at = [...P, 'triggers', k];
    needDomain([...at, 'domain'], trigger.domain);
    trigger.subscribers.forEach((ref, s) => {
      if (!automations.has(ref)) c.fail([...at, 'subscribers', s], `no agent or flow "${ref}" in this organization`);
    });
    if (trigger.type !== 'event') return;
    const integration = c.integrations.get(trigger.sourceIntegrationId);
    const event = integration === undefined ? undefined : eventsOf(integration)?.find((e) => e.type === trigger.eventType);
    if (integration === undefined) c.fail([...at, 'sourceIntegrationId'], `no integration "${trigger.sourceIntegrationId}"`);
    else if (event === undefined) c.fail([...at, 'eventType'], `integration "${integration.id}" declares no event "${trigger.eventType}"`);
    const connection = connections.get(trigger.connection);
    if (connection === undefined) c.fail([...at, 'connection'], `no connection "${trigger.connection}" in this organization`);
    else if (connection.integration !== trigger.sourceIntegrationId) {
      c.fail([...at, 'connection'], `connection "${trigger.connection}" is for integration "${connection.integration}"`);
    } else if (connection.domain !== undefined && connection.domain !== trigger.domain) {
      c.fail([...at, 'connection'], `connection "${trigger.connection}" belongs to another domain`);
    }
    const filter = trigger.eventFilter;
    if (filter !== undefined) {
      const field = filter.field;
      const known = field === 'occurredAt' || /^actor(\.|$)/.test(field) || (event?.payloadPaths.includes(field) ?? true);
      if (!known) c.fail([...at, 'eventFilter', 'field'], `"${field}" is not occurredAt, actor data, or a payload path of "${trigger.eventType}"`);
      if ((filter.operator === '>' || filter.operator === '<') && typeof filter.value !== 'number' && typeof filter.value !== 'string') {
        c.fail([...at, 'eventFilter', 'value'], `must be a number or a string for operator "${filter.operator}"`);
      }
    }
  });

  org.knowledge.bases.forEach((base, b) => needDomain([...P, 'knowledge', 'bases', b, 'domain'], base.domain));
  org.knowledge.modules.forEach((module, m) => {
    const at = [...P, 'knowledge', 'modules', m];
    needDomain([...at, 'domain'], module.domain);
    module.articles.forEach((ref, a) => {
      const found = articles.get(ref);
      const where = [...at, 'articles', a];
      // SPEC authoring: a module holds published articles only, and only compatible ones (409 CONFLICT there).
      if (found === undefined) c.fail(where, `no article "${ref}" in this organization`);
      else if (!found.article.published) c.fail(where, `article "${ref}" is not published`);
      else if (found.base.domain !== undefined && module.kind === 'domain' && found.base.domain !== module.domain) {
        c.fail(where, `article "${ref}" is in a knowledge base of another domain`);
      }
    });
  });
}

function checkPartner(c: Checker, partner: PartnerManifest, P: Path): void {
  const templates = new Set(partner.templates.map((t) => t.ref));
  const template = partner.provisioning?.template;
  if (template !== undefined && !templates.has(template)) c.fail([...P, 'provisioning', 'template'], `no template "${template}" in this partner`);
  partner.templates.forEach((t, k) => {
    const at = [...P, 'templates', k];
    const refs = new Set<string>();
    const unique = (ref: string, path: Path): void => {
      if (refs.has(ref)) c.fail(path, `duplicate ref "${ref}" in this template`);
      refs.add(ref);
    };
    t.agents.forEach((agent, a) => {
      unique(agent.ref, [...at, 'agents', a, 'ref']);
      c.agentSetup([...at, 'agents', a], agent);
      if ((agent.knowledge?.modules?.length ?? 0) > 0) {
        c.fail([...at, 'agents', a, 'knowledge', 'modules'], 'a template has no knowledge modules to select');
      }
    });
    t.flows.forEach((flow, f) => {
      unique(flow.ref, [...at, 'flows', f, 'ref']);
      c.flowGraph([...at, 'flows', f], flow);
    });
  });
}

/** Every problem with the manifest's references, each at its JSON path; empty when the manifest is consistent. */
export function checkReferences(manifest: WorkspaceManifest, known: KnownIntegrations = {}): ManifestIssue[] {
  const c = new Checker();
  const builtins = known.builtins ?? BUILTIN_INTEGRATIONS;
  const reserved = new Set(builtins.map((b) => b.id));
  for (const definition of known.applied ?? []) if (!reserved.has(definition.id)) c.addIntegration(definition);
  for (const builtin of builtins) c.addIntegration(builtin);
  const manifestIds = new Set<string>();
  manifest.integrations.forEach((definition, i) => {
    if (reserved.has(definition.id)) c.fail(['integrations', i, 'id'], `"${definition.id}" is a built-in integration`);
    else if (manifestIds.has(definition.id)) c.fail(['integrations', i, 'id'], `duplicate integration "${definition.id}"`);
    else {
      manifestIds.add(definition.id);
      c.addIntegration(definition);
    }
    definition.tools.forEach((tool, t) => c.jsonSchema(['integrations', i, 'tools', t, 'inputSchema'], tool.inputSchema));
  });

  // Refs are unique across the whole manifest so `apply` can print one flat ref -> id map.
  const refs = new Map<string, string>();
  const claim = (ref: string, path: Path): void => {
    const first = refs.get(ref);
    if (first !== undefined) c.fail(path, `duplicate ref "${ref}" (first used at ${first})`);
    else refs.set(ref, formatPath(path));
  };
  const emails = new Map<string, string>();
  manifest.organizations.forEach((org, o) => {
    const P = ['organizations', o];
    claim(org.ref, [...P, 'ref']);
    org.users.forEach((user, u) => {
      claim(user.ref, [...P, 'users', u, 'ref']);
      user.apiKeys.forEach((key, k) => claim(key, [...P, 'users', u, 'apiKeys', k]));
      const email = user.email.toLowerCase();
      const first = emails.get(email);
      if (first !== undefined) c.fail([...P, 'users', u, 'email'], `duplicate email (first used at ${first})`);
      else emails.set(email, formatPath([...P, 'users', u, 'email']));
    });
    for (const [list, items] of [
      ['domains', org.domains],
      ['connections', org.connections],
      ['agents', org.agents],
      ['flows', org.flows],
      ['triggers', org.triggers],
    ] as const) {
      items.forEach((item, k) => claim(item.ref, [...P, list, k, 'ref']));
    }
    org.knowledge.bases.forEach((base, b) => {
      claim(base.ref, [...P, 'knowledge', 'bases', b, 'ref']);
      base.articles.forEach((article, a) => claim(article.ref, [...P, 'knowledge', 'bases', b, 'articles', a, 'ref']));
    });
    org.knowledge.modules.forEach((module, m) => claim(module.ref, [...P, 'knowledge', 'modules', m, 'ref']));
    checkOrganization(c, org, P);
  });
  manifest.partners.forEach((partner, p) => {
    const P = ['partners', p];
    claim(partner.ref, [...P, 'ref']);
    partner.keys.forEach((key, k) => claim(key, [...P, 'keys', k]));
    partner.apps.forEach((app, a) => claim(app.ref, [...P, 'apps', a, 'ref']));
    partner.templates.forEach((template, t) => claim(template.ref, [...P, 'templates', t, 'ref']));
    checkPartner(c, partner, P);
  });
  return c.issues;
}

