// An organization's connections (issue 13 item 6): list, add, rotate, remove; secret material sealed, never returned.
import type { PortRepositories, Storage } from '../../storage/port/storage.js';
import type { Connection } from '../../storage/records/integrations.js';
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
  list(manager: Manager): Promise<ConnectionView[]>;
  add(manager: Manager, input: { integrationId: string; domainId?: string; secret: ConnectionSecret }): Promise<ConnectionView>;
  rotate(manager: Manager, connectionId: string, input: { secret: ConnectionSecret }): Promise<ConnectionView>;
  remove(manager: Manager, connectionId: string): Promise<void>;
}

const view = (connection: Connection): ConnectionView => ({
  connectionId: connection.id,
  integrationId: connection.integrationId,
  domainId: connection.domainId,
  hasSecret: connection.secretSealed !== null,
  createdAt: toIso(connection.createdAt),
  rotatedAt: connection.rotatedAt === null ? null : toIso(connection.rotatedAt),
});

export function createConnectionsService(deps: { store: Storage; clock: Clock; keyRing: KeyRing }): ConnectionsService {
  const { repos, writer } = deps.store;
  const { management, integrations } = repos;

  /** `from`: the store's repositories, or the unit's inside one. */
  const connectionOf = async (from: Pick<PortRepositories, 'management'>, orgId: string, connectionId: string): Promise<Connection> => {
    const row = isUuid(connectionId) ? await from.management.connection(connectionId) : undefined;
    if (row === undefined || row.orgId !== orgId) throw notFound();
    return row;
  };

  return {
    async list(manager) {
      await requireOrgAdmin(repos, manager);
      return (await integrations.connectionsOfOrganization(manager.orgId)).map(view);
    },

    async add(manager, input) {
      await requireOrgAdmin(repos, manager);
      const integration = await integrations.integration(input.integrationId);
      // Another organization's private integration reads as unknown, like a missing one.
      if (integration === undefined || (integration.orgId !== null && integration.orgId !== manager.orgId)) {
        throw validation('The request body is not valid.', { issues: [{ path: 'integrationId', message: `no integration "${input.integrationId}"` }] });
      }
      const domainId = input.domainId === undefined ? null : (await domainOfOrg(repos, manager.orgId, input.domainId)).id;
      const id = newId();
      const now = deps.clock.now();
      // Sealed before the unit of work: encryption is CPU work that must not hold the writer.
      const sealed = sealSecret(deps.keyRing, input.secret, sealedSecretAad.connection(manager.orgId, id));
      const connection: Connection = { id, orgId: manager.orgId, domainId, integrationId: integration.id, secretSealed: sealed, createdAt: now, rotatedAt: null };
      await writer.submit(async (tx) => {
        await tx.repos.integrations.insertConnection(connection);
      });
      return view(connection);
    },

    async rotate(manager, connectionId, { secret }) {
      await requireOrgAdmin(repos, manager);
      const row = await connectionOf(repos, manager.orgId, connectionId);
      const sealed = sealSecret(deps.keyRing, secret, sealedSecretAad.connection(manager.orgId, row.id));
      const now = deps.clock.now();
      await writer.submit(async (tx) => {
        await connectionOf(tx.repos, manager.orgId, connectionId);
        await tx.repos.management.rotateConnection(row.id, sealed, now);
      });
      return view({ ...row, secretSealed: sealed, rotatedAt: now });
    },

    async remove(manager, connectionId) {
      await requireOrgAdmin(repos, manager);
      await writer.submit(async (tx) => {
        await tx.repos.management.deleteConnection((await connectionOf(tx.repos, manager.orgId, connectionId)).id);
      });
    },
  };
}
