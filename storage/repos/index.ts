// All repositories over one connection; each feature adds its repo here (one line each).
import type { SqliteDatabase } from '../database.js';
import { createCredentialsRepo } from './credentials.repo.js';
import { createTenancyRepo } from './tenancy.repo.js';

export function createRepositories(db: SqliteDatabase) {
  return {
    tenancy: createTenancyRepo(db),
    credentials: createCredentialsRepo(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
