// Every migration, in order; adding one means adding a file and a line here.
import type { Migration } from './migration.js';
import { migration as m0010 } from './0010-tenancy.js';
import { migration as m0020 } from './0020-credentials.js';
import { migration as m0030 } from './0030-automations.js';
import { migration as m0040 } from './0040-integrations.js';
import { migration as m0050 } from './0050-triggers.js';
import { migration as m0060 } from './0060-sessions.js';
import { migration as m0070 } from './0070-claims-grants.js';
import { migration as m0080 } from './0080-knowledge.js';
import { migration as m0090 } from './0090-partners.js';
import { migration as m0100 } from './0100-webhooks-timers-snapshots.js';
import { migration as m0110 } from './0110-knowledge-rowid.js';
import { migration as m0120 } from './0120-conversations.js';
import { migration as m0130 } from './0130-fire-history.js';
import { migration as m0140 } from './0140-partner-api.js';
import { migration as m0150 } from './0150-event-deliveries-webhooks.js';
import { migration as m0160 } from './0160-run-results-inline.js';
import { migration as m0170 } from './0170-session-lifecycle.js';
import { migration as m0180 } from './0180-management.js';
import { migration as m0190 } from './0190-org-management.js';
import { migration as m0200 } from './0200-accept-inbox.js';
import { migration as m0210 } from './0210-sessions-by-creator.js';
import { migration as m0220 } from './0220-timer-claims.js';

export type { Migration };
export const MIGRATIONS: readonly Migration[] = [m0010, m0020, m0030, m0040, m0050, m0060, m0070, m0080, m0090, m0100, m0110, m0120, m0130, m0140, m0150, m0160, m0170, m0180, m0190, m0200, m0210, m0220];
