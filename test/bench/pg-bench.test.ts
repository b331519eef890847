// `npm run bench:pg` end to end in --quick mode (a throwaway PostgreSQL cluster, the real CLI), and its own RESULTS.md section.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO_ROOT } from '../../bench/children.js';
import { keptSections, replaceSection } from '../../bench/results.js';
import { parseTable } from '../../bench/table.js';
import { postgresBinDir } from '../helpers/postgres-cluster.js';

const run = promisify(execFile);

t.test('a section command rewrites only its section, and the main run keeps it', async (t) => {
  const main = '# Benchmark results\n\n## Last run\n\n| old |\n';
  const first = replaceSection(main, 'PostgreSQL', '<!-- bench section: PostgreSQL -->\n## PostgreSQL\n\nrun 1\n');
  t.equal(first, `${main}\n<!-- bench section: PostgreSQL -->\n## PostgreSQL\n\nrun 1\n`, 'appended after the main results');
  const second = replaceSection(`${first}\n<!-- bench section: Other -->\n## Other\n`, 'PostgreSQL', '<!-- bench section: PostgreSQL -->\n## PostgreSQL\n\nrun 2\n');
  t.match(second, /run 2/);
  t.notMatch(second, /run 1/, 'the old figures are gone');
  t.match(second, /## Other\n$/, 'a later section stays');
  t.ok(second.startsWith(main), 'the main results stay');
  t.equal(`# new main\n${keptSections(second)}`, `# new main\n\n${second.slice(second.indexOf('<!-- bench section: PostgreSQL'))}`, 'npm run bench carries both sections over');
  t.equal(keptSections(main), '', 'nothing to keep without a section');
});

const binDir = postgresBinDir();

t.test('npm run bench:pg --quick measures fire on SQLite and PostgreSQL workers and SSE streams across workers', {
  skip: binDir === null ? 'no PostgreSQL server binaries (Debian postgresql, or SWITCHYARD_TEST_PG_BIN)' : false,
  timeout: 280_000,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'RESULTS.md');
  writeFileSync(out, '# Benchmark results\n\n## Last run\n\nthe main run\n');
  const env: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_BENCH_PG_WORKERS: '1,2' };
  delete env.NODE_OPTIONS;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/run-pg.ts', '--quick', '--out', out], { cwd: REPO_ROOT, env, timeout: 260_000 });

  const rows = parseTable(stdout);
  t.same(parseTable(readFileSync(out, 'utf8')), rows, 'the file holds the printed table');
  t.match(readFileSync(out, 'utf8'), /^# Benchmark results\n\n## Last run\n\nthe main run\n\n<!-- bench section: PostgreSQL -->\n## PostgreSQL\n/, 'written as a section after the main results');
  t.same(
    rows.map((row) => row.target),
    [
      'switchyard start --workers 1 (sqlite)',
      'switchyard start --workers 1 (postgres)',
      'switchyard start --workers 2 (postgres)',
      'baseline-uws',
      '300/300 streams, switchyard start --workers 2',
    ],
  );
  // A row exists only after its probe fire answered 202; how many followed in the run is timing, not asserted here.
  for (const row of rows.slice(0, 4)) {
    t.equal(row.errors, 0, `${row.target} had no client errors`);
    t.not(row.ratioToBaseline, null, `${row.target} is compared with bare uWS`);
  }
  t.match(rows[1]!.note, /fsync=on synchronous_commit=on full_page_writes=on/, 'PostgreSQL runs durable');
  const sse = rows[4]!;
  t.equal(sse.errors, 0, 'every stream opened and saw every round');
  t.ok(sse.p50ms > 0, 'the fan-out was timed');
  t.match(sse.note, /2 rounds/);
  t.match(stdout, /- command: `node --import tsx bench\/run-pg\.ts --quick --out /);
});
