// Reads a published agent revision: the Setup and belt frozen at publish time, which every turn runs with.
import type { PortRepositories } from '../../storage/port/storage.js';
import { AppError } from '../errors.js';
import { IDENTITY_BINDINGS, bindingsByIntegration, type IdentityBinding, type IntegrationBinding } from '../vault/index.js';

export interface RevisionSetup {
  readonly principles: string;
  readonly procedure: string;
  readonly model: string;
  readonly approvalTools: readonly string[];
}

export interface PublishedRevision {
  readonly revision: number;
  readonly setup: RevisionSetup;
  readonly belt: readonly IntegrationBinding[];
  /** Integration id -> identity mode. */
  readonly bindings: ReadonlyMap<string, IdentityBinding>;
}

const str = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);

/** Throws when the stored setup did not parse (readRevision answers INTERNAL). */
function parseSetup(stored: unknown): RevisionSetup {
  if (typeof stored !== 'object' || stored === null) throw new TypeError('unreadable setup');
  const raw = stored as Record<string, unknown>;
  const approvalTools = Array.isArray(raw.approvalTools) ? raw.approvalTools.filter((t): t is string => typeof t === 'string') : [];
  return { principles: str(raw.principles), procedure: str(raw.procedure), model: str(raw.model, 'builtin:procedure'), approvalTools };
}

function parseBelt(raw: unknown): IntegrationBinding[] {
  if (raw === undefined) throw new TypeError('unreadable belt');
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry: { integrationId?: unknown; identityMode?: unknown }) =>
    typeof entry?.integrationId === 'string' && IDENTITY_BINDINGS.includes(entry.identityMode as IdentityBinding)
      ? [{ integrationId: entry.integrationId, identityMode: entry.identityMode as IdentityBinding }]
      : [],
  );
}

/** The revision, or undefined when it does not exist. Throws INTERNAL when its stored JSON is unreadable. */
export async function readRevision(automations: Pick<PortRepositories['automations'], 'agentRevision'>, automationId: string, revision: number): Promise<PublishedRevision | undefined> {
  const row = await automations.agentRevision(automationId, revision);
  if (row === undefined) return undefined;
  try {
    const belt = parseBelt(row.belt);
    return { revision, setup: parseSetup(row.setup), belt, bindings: bindingsByIntegration(belt) };
  } catch {
    throw new AppError('INTERNAL', `Revision ${revision} of agent ${automationId} cannot be read.`);
  }
}
