// Owns applying the integration catalog (global definitions) and an organization's connections (secrets sealed).
import { newId } from '../ids.js';
import { isVaultError } from '../vault/vault-error.js';
import { openSecret, sealSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import type { ApplyContext, OrganizationIds } from './apply-context.js';
import { canonicalJson } from './canonical-json.js';
import type { IntegrationDefinition } from './integration.schema.js';
import { ManifestError, formatPath } from './manifest-error.js';
import type { OrganizationManifest } from './organization.schema.js';

/** Kept for importers of this module; the AADs live in runtime/vault/sealed-secret.ts. */
export const connectionSecretAad = sealedSecretAad.connection;

export async function applyIntegrations(ctx: ApplyContext, integrations: readonly IntegrationDefinition[]): Promise<void> {
  const repo = ctx.repos.integrations;
  for (const [i, definition] of integrations.entries()) {
    const existing = await repo.integration(definition.id);
    if (existing !== undefined && existing.orgId !== null) {
      throw new ManifestError([{ path: formatPath(['integrations', i, 'id']), message: `"${definition.id}" is an organization's private integration` }]);
    }
    const unchanged = existing !== undefined && existing.available && existing.name === definition.name && existing.description === definition.description
      && canonicalJson(existing.definition) === canonicalJson(definition);
    if (unchanged) continue;
    await repo.upsertIntegration({
      id: definition.id,
      orgId: null,
      name: definition.name,
      description: definition.description,
      definition,
      available: true,
      updatedAt: ctx.now,
    });
  }
}

/** Seals `value` unless the stored blob already holds it (key order aside), so a re-apply writes nothing. */
export function sealIfChanged(ctx: ApplyContext, stored: Buffer | null, value: unknown, aad: string): Buffer {
  if (stored !== null) {
    try {
      if (canonicalJson(openSecret(ctx.keyRing, stored, aad)) === canonicalJson(value)) return stored;
    } catch (error) {
      // Sealed under a retired master key or altered: the manifest's value replaces it.
      if (!isVaultError(error)) throw error;
    }
  }
  return sealSecret(ctx.keyRing, value, aad);
}

export async function applyConnections(ctx: ApplyContext, ids: OrganizationIds, org: OrganizationManifest, o: number): Promise<void> {
  const repo = ctx.repos.integrations;
  for (const [k, connection] of org.connections.entries()) {
    const path = formatPath(['organizations', o, 'connections', k]);
    const domainId = connection.domain === undefined ? null : ids.domains.get(connection.domain)!;
    let id = await ctx.book.lookup(ids.scope, connection.ref, 'connection', path, async (found) => (await repo.connection(found))?.orgId === ids.orgId);
    if (id === undefined) {
      id = newId();
      const sealed = connection.secret === undefined ? null : sealSecret(ctx.keyRing, connection.secret, sealedSecretAad.connection(ids.orgId, id));
      await repo.insertConnection({ id, orgId: ids.orgId, domainId, integrationId: connection.integration, secretSealed: sealed, createdAt: ctx.now, rotatedAt: null });
    } else {
      const row = (await repo.connection(id))!;
      // An absent secret keeps the stored one: material may have been set in the product since.
      const sealed =
        connection.secret === undefined ? row.secretSealed : sealIfChanged(ctx, row.secretSealed, connection.secret, sealedSecretAad.connection(ids.orgId, id));
      if (row.domainId !== domainId || row.integrationId !== connection.integration || sealed !== row.secretSealed) {
        await repo.updateConnection({ id, domainId, integrationId: connection.integration, secretSealed: sealed });
      }
    }
    await ctx.book.remember(ids.scope, connection.ref, 'connection', id);
    ctx.refs[connection.ref] = id;
    ids.connections.set(connection.ref, id);
  }
}
