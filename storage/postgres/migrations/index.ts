// Every PostgreSQL migration, in order; adding one means adding a file and a line here.
import type { PostgresMigration } from './migration.js';
import { migration as m0010 } from './0010-tenancy-credentials.js';
import { migration as m0020 } from './0020-automations-triggers.js';
import { migration as m0030 } from './0030-sessions.js';
import { migration as m0040 } from './0040-knowledge.js';
import { migration as m0050 } from './0050-partners.js';
import { migration as m0060 } from './0060-webhooks-timers-snapshots.js';
import { migration as m0070 } from './0070-resource-leases.js';
import { migration as m0080 } from './0080-timer-claims.js';

export type { PostgresMigration };
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [m0010, m0020, m0030, m0040, m0050, m0060, m0070, m0080];
