// Owns an agent's draft Setup as the API shows it, and the frozen form a revision stores (shared with manifest apply).
import type { AgentDraft } from '../../storage/records/automations.js';
import type { PortRepositories } from '../../storage/port/storage.js';
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

export function setupFromRow(row: AgentDraft | undefined): AgentSetup {
  if (row === undefined) return EMPTY_SETUP;
  return { principles: row.principles, procedure: row.procedure, model: row.model, approvalTools: row.approvalTools };
}

export function setupRow(automationId: string, setup: AgentSetup, now: number): AgentDraft {
  return { automationId, principles: setup.principles, procedure: setup.procedure, model: setup.model, approvalTools: setup.approvalTools, updatedAt: now };
}

/** What a revision freezes; the same key order runtime/manifest/apply-automations.ts writes, so equal setups compare equal. */
export function frozenSetup(setup: AgentSetup): AgentSetup {
  const { principles, procedure, model, approvalTools } = setup;
  return { principles, procedure, model, approvalTools };
}

/** True when a revision's stored setup is `setup` (compared as the stored JSON text). */
export function isFrozenSetup(stored: unknown, setup: AgentSetup): boolean {
  return JSON.stringify(stored) === JSON.stringify(frozenSetup(setup));
}

/** Integration id -> the author's binding policy (planBelt's input). */
export async function bindingsOf(automations: PortRepositories['automations'], automationId: string): Promise<Record<string, IdentityBinding>> {
  return Object.fromEntries((await automations.agentBindings(automationId)).map((b) => [b.integrationId, b.policy]));
}
