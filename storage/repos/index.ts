// All repositories over one connection; each feature adds its repo here (one line each).
import type { SqliteDatabase } from '../database.js';
import { createCredentialsRepo } from './credentials.repo.js';
import { createSessionEventsRepo } from './session-events.repo.js';
import { createTenancyRepo } from './tenancy.repo.js';
import { createSnapshotsRepo } from './snapshots.repo.js';
import { createTimersRepo } from './timers.repo.js';

export function createRepositories(db: SqliteDatabase) {
  return {
    tenancy: createTenancyRepo(db),
    credentials: createCredentialsRepo(db),
    sessionEvents: createSessionEventsRepo(db),
    snapshots: createSnapshotsRepo(db),
    timers: createTimersRepo(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
