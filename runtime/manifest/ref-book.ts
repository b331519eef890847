// Owns manifest refs -> ids (table manifest_refs): what makes applying the same manifest twice create nothing new.
import type { Awaitable, PortRepositories } from '../../storage/port/storage.js';
import { ManifestError } from './manifest-error.js';

/** Scope of refs that are not inside an organization (organizations, partners and their parts). */
export const GLOBAL_SCOPE = 'global';

export type RefEntity =
  | 'organization'
  | 'user'
  | 'api_key'
  | 'domain'
  | 'connection'
  | 'agent'
  | 'flow'
  | 'trigger'
  | 'knowledge_base'
  | 'article'
  | 'knowledge_module'
  | 'partner'
  | 'partner_key'
  | 'partner_app'
  | 'partner_template';

export interface RefBook {
  /**
   * The id applied earlier for `ref` in `scope`, when that entity still exists (`exists`); undefined when it
   * must be created. Throws ManifestError (at `path`) when the ref named another kind of entity before.
   */
  lookup(scope: string, ref: string, entity: RefEntity, path: string, exists: (id: string) => Awaitable<boolean>): Promise<string | undefined>;
  remember(scope: string, ref: string, entity: RefEntity, id: string): Promise<void>;
}

export function createRefBook(tenancy: PortRepositories['tenancy']): RefBook {
  return {
    async lookup(scope, ref, entity, path, exists) {
      const row = await tenancy.manifestRef(scope, ref);
      if (row === undefined) return undefined;
      if (row.entity !== entity) {
        throw new ManifestError([{ path, message: `ref "${ref}" was applied before as a ${row.entity}; it cannot now name a ${entity}` }]);
      }
      // Deleted since (e.g. through the product): the ref is applied again as a new entity.
      return (await exists(row.entityId)) ? row.entityId : undefined;
    },
    async remember(scope, ref, entity, id) {
      const row = await tenancy.manifestRef(scope, ref);
      if (row?.entity !== entity || row.entityId !== id) await tenancy.putManifestRef(scope, ref, entity, id);
    },
  };
}
