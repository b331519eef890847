// Owns applying a workspace manifest: passwords hashed first, then everything written in one unit of work.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { KeyRing } from '../vault/key-ring.js';
import type { ApplyContext } from './apply-context.js';
import { applyAutomations } from './apply-automations.js';
import { applyConnections, applyIntegrations } from './apply-integrations.js';
import { applyKnowledge } from './apply-knowledge.js';
import { applyPartner } from './apply-partners.js';
import { planPasswordHashes } from './apply-passwords.js';
import { applyOrganization } from './apply-tenancy.js';
import { applyTriggers } from './apply-triggers.js';
import type { IntegrationDefinition } from './integration.schema.js';
import { parseManifest } from './parse.js';
import { createRefBook } from './ref-book.js';

export interface ApplyManifestDeps {
  readonly clock: Clock;
  /** Seals connection secrets and event-trigger endpoint secrets. */
  readonly keyRing: KeyRing;
}

export interface ApplyManifestResult {
  /** Every ref -> its id; a key created by this apply maps to its secret (`sv_…`, `svp_…`), shown this once. */
  readonly refs: Record<string, string>;
}

/**
 * Validates `manifest` (a WorkspaceManifest, parsed or as written: it is checked again here, since the embedding
 * API may pass any value; integrations applied earlier may be named) and applies it.
 * Idempotent by ref (manifest_refs). Throws ManifestError, with nothing applied, for a bad manifest.
 */
export async function applyManifest(
  store: Storage,
  manifest: unknown,
  deps: ApplyManifestDeps,
): Promise<ApplyManifestResult> {
  const applied = (await store.repos.integrations.globalIntegrations()).map((integration) => integration.definition as IntegrationDefinition);
  const checked = parseManifest(manifest, { knownIntegrations: { applied } });
  const hashes = await planPasswordHashes(store.repos, checked);
  // One unit: the whole manifest applies or nothing does (a ManifestError thrown midway rolls it back).
  return store.writer.submit(async (tx) => {
    // First in the unit: applies from other nodes wait here, then read what the one before them wrote (PostgreSQL).
    await tx.repos.tenancy.lockManifestApply();
    const ctx: ApplyContext = {
      repos: tx.repos,
      now: deps.clock.now(),
      keyRing: deps.keyRing,
      book: createRefBook(tx.repos.tenancy),
      refs: {},
    };
    await applyIntegrations(ctx, checked.integrations);
    for (const [o, org] of checked.organizations.entries()) {
      const ids = await applyOrganization(ctx, org, o, hashes);
      await applyConnections(ctx, ids, org, o);
      // Knowledge before agents: an agent's selection names module ids.
      await applyKnowledge(ctx, ids, org, o);
      await applyAutomations(ctx, ids, org, o);
      await applyTriggers(ctx, ids, org, o);
    }
    for (const [p, partner] of checked.partners.entries()) await applyPartner(ctx, partner, p);
    return { refs: ctx.refs };
  });
}

export interface ManifestApplier {
  apply(manifest: unknown): Promise<ApplyManifestResult>;
}

/** The applier as a service: store and key ring bound once (CLI `apply`, `start --manifest`, embedding API). */
export function createManifestApplier(deps: ApplyManifestDeps & { readonly store: Storage }): ManifestApplier {
  return { apply: (manifest) => applyManifest(deps.store, manifest, deps) };
}
