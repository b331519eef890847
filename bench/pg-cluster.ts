// A throwaway PostgreSQL cluster for the benches, durable as a real server is (fsync on), and fresh databases in it.
import pg from 'pg';
import { postgresBinDir, startCluster, type Cluster } from '../test/helpers/postgres-cluster.js';

/** The test helper's cluster with its speed-ups undone: a 202 on PostgreSQL then costs the fsync it costs in production. */
const DURABLE = ['fsync=on', 'synchronous_commit=on', 'full_page_writes=on'];

export interface BenchCluster {
  /** A new empty database's URL (the service migrates it at start). */
  database(name: string): Promise<string>;
  /** Settings recorded beside the figures. */
  readonly facts: string;
  stop(): void;
}

/** Starts the cluster, or throws why it cannot (no PostgreSQL binaries here: `apt-get install postgresql`). */
export async function startBenchCluster(): Promise<BenchCluster> {
  const binDir = postgresBinDir();
  if (binDir === null) throw new Error('no PostgreSQL server binaries (Debian: apt-get install postgresql; or set SWITCHYARD_TEST_PG_BIN)');
  const cluster: Cluster | string = await startCluster(binDir, DURABLE);
  if (typeof cluster === 'string') throw new Error(`PostgreSQL cluster: ${cluster}`);
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  try {
    await admin.connect();
    const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    return {
      facts: `PostgreSQL ${version.split(' ')[0]} (${binDir}), throwaway cluster on 127.0.0.1, ${DURABLE.join(' ')}`,
      async database(name) {
        if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad database name "${name}"`);
        await admin.query(`CREATE DATABASE ${name}`);
        return cluster.adminUrl.replace(/\/postgres$/, `/${name}`);
      },
      stop() {
        void admin.end().catch(() => undefined);
        cluster.stop();
      },
    };
  } catch (error) {
    await admin.end().catch(() => undefined);
    cluster.stop();
    throw error;
  }
}
