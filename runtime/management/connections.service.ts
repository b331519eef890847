// An organization's connections (issue 13 item 6): list, add, rotate, remove; secret material sealed, never returned.
import type { Store } from '../../storage/store.js';
import type { ManagedConnectionRow } from '../../storage/repos/management.repo.js';
import { toIso, type Clock } from '../clock.js';
import { notFound, validation } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import type { ConnectionSecret } from '../manifest/organization.schema.js';
import { sealSecret, sealedSecretAad } from '../vault/sealed-secret.js';
import type { KeyRing } from '../vault/index.js';
import { domainOfOrg, requireOrgAdmin, type Manager } from './org-access.js';

export interface ConnectionView {
  connectionId: string;
  integrationId: string;
  /** null: the connection serves the whole organization. */
  domainId: string | null;
  /** Whether secret material is stored; the material itself is never returned. */
  hasSecret: boolean;
  createdAt: string;
  rotatedAt: string | null;
}

export interface ConnectionsService {
  list(manager: Manager): ConnectionView[];
  add(manager: Manager, input: { integrationId: string; domainId?: string; secret: ConnectionSecret }): Promise<ConnectionView>;
  rotate(manager: Manager, connectionId: string, input: { secret: ConnectionSecret }): Promise<ConnectionView>;
  remove(manager: Manager, connectionId: string): Promise<void>;
}

const view = (row: ManagedConnectionRow): ConnectionView => ({
  connectionId: row.id,
  integrationId: row.integration_id,
  domainId: row.domain_id,
  hasSecret: row.secret_sealed !== null,
  createdAt: toIso(row.created_at),
  rotatedAt: row.rotated_at === null ? null : toIso(row.rotated_at),
});

export function createConnectionsService(deps: { store: Store; clock: Clock; keyRing: KeyRing }): ConnectionsService {
  const { repos, writer } = deps.store;
  const { management, integrations } = repos;

  const connectionOf = (orgId: string, connectionId: string): ManagedConnectionRow => {
    const row = isUuid(connectionId) ? management.connection(connectionId) : undefined;
    if (row === undefined || row.org_id !== orgId) throw notFound();
    return row;
  };

  return {
    list(manager) {
      requireOrgAdmin(repos, manager);
      return integrations.connectionsOfOrganization(manager.orgId).map((row) => view(row as ManagedConnectionRow));
    },

    async add(manager, input) {
      requireOrgAdmin(repos, manager);
      const integration = integrations.integration(input.integrationId);
      // Another organization's private integration reads as unknown, like a missing one.
      if (integration === undefined || (integration.org_id !== null && integration.org_id !== manager.orgId)) {
        throw validation('The request body is not valid.', { issues: [{ path: 'integrationId', message: `no integration "${input.integrationId}"` }] });
      }
      const domainId = input.domainId === undefined ? null : domainOfOrg(repos, manager.orgId, input.domainId).id;
      const id = newId();
      const now = deps.clock.now();
      // Sealed before the unit of work: encryption is CPU work that must not hold the writer.
      const sealed = sealSecret(deps.keyRing, input.secret, sealedSecretAad.connection(manager.orgId, id));
      const row: ManagedConnectionRow = { id, org_id: manager.orgId, domain_id: domainId, integration_id: integration.id, secret_sealed: sealed, created_at: now, rotated_at: null };
      await writer.submit(() => integrations.insertConnection(row));
      return view(row);
    },

    async rotate(manager, connectionId, { secret }) {
      requireOrgAdmin(repos, manager);
      const row = connectionOf(manager.orgId, connectionId);
      const sealed = sealSecret(deps.keyRing, secret, sealedSecretAad.connection(manager.orgId, row.id));
      const now = deps.clock.now();
      await writer.submit(() => {
        connectionOf(manager.orgId, connectionId);
        management.rotateConnection(row.id, sealed, now);
      });
      return view({ ...row, secret_sealed: sealed, rotated_at: now });
    },

    async remove(manager, connectionId) {
      requireOrgAdmin(repos, manager);
      await writer.submit(() => management.deleteConnection(connectionOf(manager.orgId, connectionId).id));
    },
  };
}
