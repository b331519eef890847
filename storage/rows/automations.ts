// One row mapping for automations, agent setups, bindings, revisions, flow versions and knowledge selections, both drivers.
import type { RowCodec } from '../row-codec.js';
import type {
  AgentBinding, AgentDraft, AgentRevision, AgentRevisionSummary, Automation, AutomationKind, AutomationUpdate, BindingPolicy, FlowVersion,
  FlowVersionSummary, KnowledgeMode, KnowledgeSelection,
} from '../records/automations.js';

// JSON columns are text on SQLite and parsed by pg on PostgreSQL (`unknown` here); booleans 0/1 or boolean.

export interface AutomationRow {
  id: string;
  org_id: string;
  domain_id: string;
  kind: AutomationKind;
  name: string;
  description: string | null;
  published_revision: number | null;
  entitled_by_default: number | boolean;
  created_by: string | null;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
  archived_revision: number | null;
}

export interface AgentSetupRow {
  automation_id: string;
  principles: string;
  procedure: string;
  model: string;
  /** JSON array of tool wire ids. */
  approval_tools: unknown;
  updated_at: number;
}

export interface AgentBindingRow {
  automation_id: string;
  integration_id: string;
  policy: BindingPolicy;
}

export interface AgentRevisionRow {
  automation_id: string;
  revision: number;
  setup: unknown;
  belt: unknown;
  change_note: string | null;
  published_by: string | null;
  created_at: number;
}

export interface FlowVersionRow {
  automation_id: string;
  version: number;
  definition: unknown;
  bindings: unknown;
  created_at: number;
}

export interface KnowledgeSelectionRow {
  automation_id: string;
  mode: KnowledgeMode;
  module_ids: unknown;
}

export const bindingFromRow = (r: AgentBindingRow): AgentBinding => ({ automationId: r.automation_id, integrationId: r.integration_id, policy: r.policy });

export const revisionSummaryFromRow = (r: Omit<AgentRevisionRow, 'setup' | 'belt'>): AgentRevisionSummary => ({
  automationId: r.automation_id,
  revision: r.revision,
  changeNote: r.change_note,
  publishedBy: r.published_by,
  createdAt: r.created_at,
});

export const flowVersionSummaryFromRow = (r: Pick<FlowVersionRow, 'automation_id' | 'version' | 'created_at'>): FlowVersionSummary => ({
  automationId: r.automation_id,
  version: r.version,
  createdAt: r.created_at,
});

export function automationRows(codec: RowCodec) {
  /** The strings of a JSON array column; anything else reads as empty. */
  const stringList = (value: unknown): string[] => {
    const parsed = codec.json(value);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
  };

  const automationFromRow = (r: AutomationRow): Automation => ({
    id: r.id,
    orgId: r.org_id,
    domainId: r.domain_id,
    kind: r.kind,
    name: r.name,
    description: r.description,
    publishedRevision: r.published_revision,
    entitledByDefault: codec.bool(r.entitled_by_default),
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    archivedAt: r.archived_at ?? null,
    archivedRevision: r.archived_revision ?? null,
  });

  /** The insert's columns: a new automation is never archived, so the archive columns are not written. */
  const automationToRow = (a: Automation) => ({
    id: a.id,
    org_id: a.orgId,
    domain_id: a.domainId,
    kind: a.kind,
    name: a.name,
    description: a.description,
    published_revision: a.publishedRevision,
    entitled_by_default: codec.toBool(a.entitledByDefault),
    created_by: a.createdBy,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  });

  /** The columns an edit writes. */
  const updateToRow = (a: AutomationUpdate) => ({
    id: a.id,
    domain_id: a.domainId,
    name: a.name,
    description: a.description,
    entitled_by_default: codec.toBool(a.entitledByDefault),
    updated_at: a.updatedAt,
  });

  const draftFromRow = (r: AgentSetupRow): AgentDraft => ({
    automationId: r.automation_id,
    principles: r.principles,
    procedure: r.procedure,
    model: r.model,
    approvalTools: stringList(r.approval_tools),
    updatedAt: r.updated_at,
  });

  const draftToRow = (d: AgentDraft) => ({
    automation_id: d.automationId,
    principles: d.principles,
    procedure: d.procedure,
    model: d.model,
    approval_tools: codec.toJson(d.approvalTools),
    updated_at: d.updatedAt,
  });

  const revisionFromRow = (r: AgentRevisionRow): AgentRevision => ({
    ...revisionSummaryFromRow(r),
    setup: codec.json(r.setup),
    belt: codec.json(r.belt),
  });

  const revisionToRow = (r: AgentRevision) => ({
    automation_id: r.automationId,
    revision: r.revision,
    setup: codec.toJson(r.setup),
    belt: codec.toJson(r.belt),
    change_note: r.changeNote,
    published_by: r.publishedBy,
    created_at: r.createdAt,
  });

  const flowVersionFromRow = (r: FlowVersionRow): FlowVersion => ({
    ...flowVersionSummaryFromRow(r),
    definition: codec.json(r.definition),
    bindings: codec.json(r.bindings),
  });

  const flowVersionToRow = (v: FlowVersion) => ({
    automation_id: v.automationId,
    version: v.version,
    definition: codec.toJson(v.definition),
    bindings: codec.toJson(v.bindings),
    created_at: v.createdAt,
  });

  const selectionFromRow = (r: KnowledgeSelectionRow): KnowledgeSelection => ({ automationId: r.automation_id, mode: r.mode, moduleIds: stringList(r.module_ids) });

  const selectionToRow = (s: KnowledgeSelection) => ({ automation_id: s.automationId, mode: s.mode, module_ids: codec.toJson(s.moduleIds) });

  return {
    automationFromRow, automationToRow, updateToRow, draftFromRow, draftToRow, revisionFromRow, revisionToRow, flowVersionFromRow,
    flowVersionToRow, selectionFromRow, selectionToRow,
  };
}
