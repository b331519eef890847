// The PostgreSQL connection pool: settings reach the server, int8 reads as numbers, an unreachable server is named without secrets.
import t from 'tap';
import { createServer, type Socket } from 'node:net';
import { connectPostgres, describeTarget, openPostgres, PostgresUnreachableError } from '../../../storage/postgres/connection.js';
import { usePostgres } from '../../helpers/postgres.js';

const pg = await usePostgres(t);

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

t.test('an unreachable server is an error naming host, port and database, never the password or user', async (t) => {
  const port = await closedPort();
  const error: unknown = await connectPostgres({ url: `postgres://svc_user:s3cr3t-Pa55@127.0.0.1:${port}/switchyard`, connectTimeoutMs: 2000 }).catch((e: unknown) => e);
  t.type(error, PostgresUnreachableError);
  const message = (error as Error).message;
  t.match(message, `PostgreSQL at 127.0.0.1:${port}/switchyard is unreachable`);
  t.match(message, /ECONNREFUSED/, 'says why');
  for (const text of [message, String((error as Error).cause), JSON.stringify(error)]) {
    t.notMatch(text, 's3cr3t-Pa55', 'no password');
    t.notMatch(text, 'svc_user', 'no user name');
  }
});

t.test('a server that stops answering mid-handshake times out with the same named error', async (t) => {
  // Accepts TCP and says nothing: what a black-holed or overloaded server looks like to the client.
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const { port } = silent.address() as { port: number };
  const error: unknown = await connectPostgres({ url: `postgres://u:pw@127.0.0.1:${port}/db`, connectTimeoutMs: 300 }).catch((e: unknown) => e);
  t.type(error, PostgresUnreachableError);
  t.match((error as Error).message, `127.0.0.1:${port}/db`);
});

t.test('only postgres:// URLs are taken; targets are described without credentials', async (t) => {
  t.throws(() => openPostgres({ url: 'mysql://root@localhost/db' }), /postgres:\/\//);
  t.equal(describeTarget('postgres://a:b@db.internal:6432/app?sslmode=require'), 'db.internal:6432/app');
  t.equal(describeTarget('postgresql://a@db.internal/app'), 'db.internal:5432/app');
  t.equal(describeTarget('not a url'), '(an invalid URL)');
});

t.test('application name and statement timeout reach the server; a runaway statement is stopped', { skip: pg.skip }, async (t) => {
  const url = await pg.database(t);
  const pool = await connectPostgres({ url, applicationName: 'switchyard-node-a', statementTimeoutMs: 200 });
  t.teardown(() => pool.end());
  const { rows } = await pool.query<{ name: string; timeout: string }>(
    "SELECT current_setting('application_name') AS name, current_setting('statement_timeout') AS timeout",
  );
  t.same(rows[0], { name: 'switchyard-node-a', timeout: '200ms' });
  const seen = await pool.query<{ n: number }>("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'switchyard-node-a'");
  t.equal(seen.rows[0]!.n, 1, 'visible to operators in pg_stat_activity (count is int8, read as a number)');
  await t.rejects(pool.query('SELECT pg_sleep(2)'), { code: '57014' }, 'canceled by statement_timeout');
});

t.test('int8 values read as numbers, and one beyond 2^53 is refused rather than rounded', { skip: pg.skip }, async (t) => {
  const pool = openPostgres({ url: await pg.database(t) });
  t.teardown(() => pool.end());
  const { rows } = await pool.query<{ at: number }>('SELECT 1764000000123::bigint AS at');
  t.equal(rows[0]!.at, 1764000000123);
  await t.rejects(pool.query('SELECT 9007199254740993::bigint AS big'), /does not fit a JavaScript number/);
});
