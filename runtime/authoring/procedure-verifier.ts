// Owns the publish verifier (SPEC "Authoring" verify/publish): findings with spans and proposals, the planned belt, warnings.
import { planBelt, integrationOfTool } from '../manifest/belt.js';
import { ModelError } from '../models/model-error.js';
import { parseModelString } from '../models/model-string.js';
import { procedureToolReferenceSpans } from '../models/procedure-refs.js';
import type { ToolCatalog } from '../tools/catalog.js';
import type { IdentityBinding, IntegrationBinding } from '../vault/identity-policy.js';
import type { AgentSetup } from './agent-setup.js';
import { nearestName } from './nearest-name.js';

/** Character offsets into the procedure (UTF-16 units, as every API length): `start` inclusive, `end` exclusive. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export type FindingKind =
  | 'unknown_tool'
  | 'unknown_model'
  | 'unknown_approval_tool'
  | 'readonly_approval_tool'
  | 'approval_tool_outside_belt';

export interface Finding {
  readonly kind: FindingKind;
  /** Where in the procedure; null for findings about other Setup fields (model, approvalTools). */
  readonly span: Span | null;
  readonly detail: string;
  /** The nearest real tool wire id (no `#`), when one is close enough to be a likely fix. */
  readonly proposal: string | null;
}

export type WarningKind = 'empty_belt' | 'unreferenced_tool_id';

export interface Warning {
  readonly kind: WarningKind;
  readonly span: Span | null;
  readonly detail: string;
}

export interface VerifyReport {
  readonly findings: readonly Finding[];
  readonly plannedBelt: readonly IntegrationBinding[];
  readonly warnings: readonly Warning[];
}

/** A 200,000-character procedure can hold tens of thousands of references; the answer stays bounded. */
export const MAX_REPORTED = 1_000;

/** A wire id written bare (the reference pattern without `#`); `.` in the lookbehind keeps `a.crm.get` out. */
const BARE_WIRE_ID = /(?<![A-Za-z0-9_#/.-])([A-Za-z0-9][A-Za-z0-9_-]*\.[A-Za-z0-9][A-Za-z0-9_-]*)/g;

function allToolNames(catalog: ToolCatalog): string[] {
  return catalog.integrations().flatMap((entry) => entry.integration.tools.map((tool) => tool.name));
}

function toolFindings(procedure: string, catalog: ToolCatalog, names: () => string[]): Finding[] {
  const findings: Finding[] = [];
  const proposals = new Map<string, string | null>();
  for (const ref of procedureToolReferenceSpans(procedure)) {
    if (catalog.findTool(ref.wireId) !== undefined) continue;
    if (findings.length >= MAX_REPORTED) break;
    if (!proposals.has(ref.wireId)) proposals.set(ref.wireId, nearestName(ref.wireId, names()));
    const proposal = proposals.get(ref.wireId)!;
    findings.push({
      kind: 'unknown_tool',
      span: { start: ref.start, end: ref.end },
      detail: `No tool "${ref.wireId}" is available to this organization.${proposal ? ` Did you mean #${proposal}?` : ''}`,
      proposal,
    });
  }
  return findings;
}

function modelFindings(model: string): Finding[] {
  try {
    parseModelString(model);
    return [];
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    return [{ kind: 'unknown_model', span: null, detail: error.message, proposal: null }];
  }
}

/** SPEC: approvalTools entries must name real write tools of the belt. */
function approvalFindings(approvalTools: readonly string[], catalog: ToolCatalog, belt: readonly IntegrationBinding[]): Finding[] {
  const beltIds = new Set(belt.map((b) => b.integrationId));
  const beltWriteTools = () =>
    [...beltIds].flatMap((id) => (catalog.toolsOf(id) ?? []).filter((tool) => !tool.readonly).map((tool) => tool.name));
  return approvalTools.flatMap((name, index): Finding[] => {
    const where = `approvalTools[${index}] "${name}"`;
    const found = catalog.findTool(name);
    if (found === undefined) {
      const proposal = nearestName(name, beltWriteTools());
      return [{ kind: 'unknown_approval_tool', span: null, detail: `${where} is not a tool available to this organization.`, proposal }];
    }
    if (found.tool.readonly) {
      return [{ kind: 'readonly_approval_tool', span: null, detail: `${where} is read-only; only write tools can require approval.`, proposal: null }];
    }
    if (!beltIds.has(integrationOfTool(name))) {
      return [{
        kind: 'approval_tool_outside_belt',
        span: null,
        detail: `${where} belongs to an integration the procedure does not reference.`,
        proposal: nearestName(name, beltWriteTools()),
      }];
    }
    return [];
  });
}

function warningsOf(procedure: string, catalog: ToolCatalog, belt: readonly IntegrationBinding[]): Warning[] {
  const warnings: Warning[] = [];
  if (procedure.trim() !== '' && belt.length === 0) {
    warnings.push({ kind: 'empty_belt', span: null, detail: 'The procedure references no tool, so the agent will have no integrations.' });
  }
  for (const match of procedure.matchAll(BARE_WIRE_ID)) {
    if (warnings.length >= MAX_REPORTED) break;
    const wireId = match[1];
    if (catalog.findTool(wireId) === undefined) continue;
    warnings.push({
      kind: 'unreferenced_tool_id',
      span: { start: match.index, end: match.index + wireId.length },
      detail: `"${wireId}" is written without its leading "#", so it is not a tool reference. Write #${wireId} to use the tool.`,
    });
  }
  return warnings;
}

/**
 * Pure: the same inputs give the same report, and nothing is written. The belt comes from planBelt, the function
 * manifest apply uses, so a revision published either way plans the same belt.
 */
export function verifySetup(setup: AgentSetup, bindings: Readonly<Record<string, IdentityBinding>>, catalog: ToolCatalog): VerifyReport {
  let names: string[] | null = null;
  const toolNames = () => (names ??= allToolNames(catalog));
  const plannedBelt = planBelt(setup.procedure, bindings);
  const findings = [
    ...toolFindings(setup.procedure, catalog, toolNames),
    ...modelFindings(setup.model),
    ...approvalFindings(setup.approvalTools, catalog, plannedBelt),
  ];
  return { findings, plannedBelt, warnings: warningsOf(setup.procedure, catalog, plannedBelt) };
}
