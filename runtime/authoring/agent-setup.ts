// Owns an agent's draft Setup as the API shows it, and the frozen form a revision stores (shared with manifest apply).
import type { AgentSetupRow, AutomationsRepo } from '../../storage/repos/automations.repo.js';
import { BUILTIN_PROCEDURE_MODEL } from '../models/model-string.js';
import type { IdentityBinding } from '../vault/identity-policy.js';

/** SPEC "Automation": the four Setup fields. */
export interface AgentSetup {
  readonly principles: string;
  readonly procedure: string;
  readonly model: string;
  readonly approvalTools: readonly string[];
}

export const EMPTY_SETUP: AgentSetup = Object.freeze({ principles: '', procedure: '', model: BUILTIN_PROCEDURE_MODEL, approvalTools: Object.freeze([]) });

export function setupFromRow(row: AgentSetupRow | undefined): AgentSetup {
  if (row === undefined) return EMPTY_SETUP;
  const tools = JSON.parse(row.approval_tools) as unknown;
  return {
    principles: row.principles,
    procedure: row.procedure,
    model: row.model,
    approvalTools: Array.isArray(tools) ? tools.filter((t): t is string => typeof t === 'string') : [],
  };
}

export function setupRow(automationId: string, setup: AgentSetup, now: number): AgentSetupRow {
  return {
    automation_id: automationId,
    principles: setup.principles,
    procedure: setup.procedure,
    model: setup.model,
    approval_tools: JSON.stringify(setup.approvalTools),
    updated_at: now,
  };
}

/** The JSON a revision freezes; the same key order runtime/manifest/apply-automations.ts writes, so equal setups compare equal. */
export function frozenSetup(setup: AgentSetup): string {
  const { principles, procedure, model, approvalTools } = setup;
  return JSON.stringify({ principles, procedure, model, approvalTools });
}

/** Integration id -> the author's binding policy (planBelt's input). */
export function bindingsOf(automations: AutomationsRepo, automationId: string): Record<string, IdentityBinding> {
  return Object.fromEntries(automations.agentBindings(automationId).map((b) => [b.integration_id, b.policy]));
}
