// Composes the management services (issue 13 item 6): partner customers, members, domains, connections, flows.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { KeyRing } from '../vault/index.js';
import { createConnectionsService, type ConnectionsService } from './connections.service.js';
import { createCustomersService, type CustomersService } from './customers.service.js';
import { createDomainsService, type DomainsService } from './domains.service.js';
import { createFlowsService, type FlowsService } from './flows.service.js';
import { createMembersService, type MembersService } from './members.service.js';

export interface ManagementRuntime {
  readonly customers: CustomersService;
  readonly members: MembersService;
  readonly domains: DomainsService;
  readonly connections: ConnectionsService;
  readonly flows: FlowsService;
}

export function createManagementRuntime(deps: { store: Storage; clock: Clock; keyRing: KeyRing }): ManagementRuntime {
  return {
    customers: createCustomersService(deps),
    members: createMembersService(deps),
    domains: createDomainsService(deps),
    connections: createConnectionsService(deps),
    flows: createFlowsService(deps),
  };
}
