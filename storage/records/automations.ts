// Domain records for automations: agents (draft setup, bindings, revisions, knowledge selection) and flows (versions).
import type { CreatedCursor } from './paging.js';

export type AutomationKind = 'agent' | 'flow';

/** The filters of an organization's automation list page (each null: any). */
export interface AutomationPageFilter {
  kind: AutomationKind | null;
  domainId: string | null;
  archived: boolean | null;
}

/** One page of an organization's automations as `userId` may see them (the repositories' argument list, both engines). */
export type AutomationPageArgs = [orgId: string, userId: string, filter: AutomationPageFilter, after: CreatedCursor | null, limit: number];

export type BindingPolicy = 'service' | 'caller_preferred' | 'caller_required';
export type KnowledgeMode = 'none' | 'org' | 'domain' | 'modules';

export interface Automation {
  id: string;
  orgId: string;
  domainId: string;
  kind: AutomationKind;
  name: string;
  description: string | null;
  publishedRevision: number | null;
  entitledByDefault: boolean;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
  /** Set while archived; ignored on insert (a new automation is never archived). */
  archivedAt: number | null;
  /** The published pointer an archive put aside (publishedRevision is null meanwhile); ignored on insert. */
  archivedRevision: number | null;
}

/** What an edit may change. */
export type AutomationUpdate = Pick<Automation, 'id' | 'domainId' | 'name' | 'description' | 'entitledByDefault' | 'updatedAt'>;

/** An agent's draft setup (runtime/authoring/agent-setup.ts shows it). */
export interface AgentDraft {
  automationId: string;
  principles: string;
  procedure: string;
  model: string;
  /** Tool wire ids. */
  approvalTools: readonly string[];
  updatedAt: number;
}

export interface AgentBinding {
  automationId: string;
  integrationId: string;
  policy: BindingPolicy;
}

export interface AgentRevision {
  automationId: string;
  revision: number;
  /** The setup frozen at publish time, parsed in stored key order; `undefined` when it no longer parses. */
  setup: unknown;
  /** `[{ integrationId, identityMode }]` planned at publish time, parsed; `undefined` when it no longer parses. */
  belt: unknown;
  changeNote: string | null;
  publishedBy: string | null;
  createdAt: number;
}

/** A revision as the history lists it, without its setup. */
export type AgentRevisionSummary = Omit<AgentRevision, 'setup' | 'belt'>;

export interface FlowVersion {
  automationId: string;
  version: number;
  /** `{ inputs, steps, output }`, parsed in stored key order; `undefined` when it no longer parses. */
  definition: unknown;
  /** Integration id -> binding policy, parsed; `undefined` when it no longer parses. */
  bindings: unknown;
  createdAt: number;
}

/** A version as the history lists it, without its definition. */
export type FlowVersionSummary = Pick<FlowVersion, 'automationId' | 'version' | 'createdAt'>;

export interface KnowledgeSelection {
  automationId: string;
  mode: KnowledgeMode;
  /** Knowledge module ids (only the strings of the stored array). */
  moduleIds: readonly string[];
}
