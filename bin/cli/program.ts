// Owns the CLI's grammar: commands, options, help texts, version and usage errors (commander does the parsing).
import { Command, InvalidArgumentError, Option } from 'commander';
import { applyCommand } from './apply.command.js';
import { packageVersion } from './package-root.js';
import { startCommand, type StartOptions } from './start.command.js';
import { parseWorkers } from './workers.js';

const EXIT_CODES_HELP = `
Exit codes:
  0  done (for start: stopped cleanly by SIGTERM or SIGINT)
  1  failed while running (database unreadable, port in use, internal error)
  2  usage error: unknown command or option, missing or bad value, bad SWITCHYARD_* variable
  3  workspace manifest refused (unreadable, bad JSON or invalid); nothing of it was applied`;

const ENVIRONMENT_HELP = `
Every option has a SWITCHYARD_* environment variable (SWITCHYARD_DB, SWITCHYARD_HOST, SWITCHYARD_PORT, …);
flags override them. SWITCHYARD_DATABASE_URL=postgres://… runs on PostgreSQL instead of the SQLite file.
The full list is in README.md, "Configuration".`;

function port(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > 65535) throw new InvalidArgumentError('Expected a port number from 0 to 65535 (0 picks a free one).');
  return parsed;
}

function workers(value: string): number {
  const parsed = parseWorkers(value);
  if (parsed === null) throw new InvalidArgumentError('Expected a whole number of processes, at least 1, or "auto" (one per CPU).');
  return parsed;
}

/** Settings every command shares: errors on stderr prefixed with the program name, a pointer to its help. */
function configure(command: Command, version: string): Command {
  return command
    .version(version, '-v, --version', 'print the version and exit')
    .helpOption('-h, --help', 'print this help and exit')
    .showHelpAfterError(`Run "${commandPath(command)} --help" for usage.`)
    .configureOutput({ outputError: (text, write) => write(`switchyard: ${text.replace(/^error: /, '')}`) })
    .exitOverride();
}

function commandPath(command: Command): string {
  const parent = command.parent;
  return parent ? `${commandPath(parent)} ${command.name()}` : command.name();
}

export function buildProgram(): Command {
  const version = packageVersion();
  const program = new Command('switchyard')
    .description('Runs AI agents and deterministic flows for other software: an HTTP API on a durable SQLite database, or PostgreSQL.')
    .addHelpText('after', `${EXIT_CODES_HELP}\n${ENVIRONMENT_HELP}`);
  configure(program, version);

  const start = program
    .command('start')
    .description('Serve the API. A new, empty database gets the demo workspace and a demo key (see --demo).')
    .option('--db <file>', 'SQLite database file, or :memory: (default: $SWITCHYARD_DB or ./switchyard.db; not with $SWITCHYARD_DATABASE_URL)')
    .option('--host <address>', 'address to listen on (default: $SWITCHYARD_HOST or 127.0.0.1)')
    .addOption(new Option('--port <number>', 'port to listen on; 0 picks a free one (default: $SWITCHYARD_PORT or 8080)').argParser(port))
    .option('--manifest <file>', 'apply this workspace manifest before serving (the demo is then not seeded)')
    .option('--demo', 'seed the demo workspace even into a database that holds data (its owner password is the known "demo-password")')
    .option('--no-demo', 'never seed the demo workspace nor mint a demo key')
    .addOption(
      new Option('--workers <n>', 'worker processes serving the one port, or "auto" (one per CPU); more than 1 needs PostgreSQL (default: $SWITCHYARD_WORKERS or 1)').argParser(workers),
    )
    .addHelpText(
      'after',
      `
Without --manifest, --demo or --no-demo, the demo workspace is seeded only into a new, empty database; a database
an earlier start seeded gets a new demo key; any other database is served as it is.
Logs are JSON lines on stdout; the banner (URL, demo key, curl) goes to stderr.

Examples:
  switchyard start                              # ./switchyard.db, demo workspace on first start
  switchyard start --db /data/sy.db --no-demo --host 0.0.0.0
  switchyard start --db :memory: --port 0 --manifest workspace.json
  SWITCHYARD_DATABASE_URL=postgres://sy@db/sy switchyard start --workers auto --host 0.0.0.0

With --workers N > 1 a supervisor prepares the database once (migrations, manifest, demo), then runs N worker
processes on the one port; a crashed worker is restarted with backoff, SIGTERM drains them all.
${EXIT_CODES_HELP}`,
    )
    .action((options: StartOptions) => startCommand(options));
  configure(start, version);

  const apply = program
    .command('apply')
    .description('Apply a workspace manifest in one transaction and print its refs as JSON (key secrets only the first time).')
    .argument('<file>', 'workspace manifest (JSON; schema: docs/workspace.schema.json)')
    .option('--db <file>', 'SQLite database file (default: $SWITCHYARD_DB or ./switchyard.db)')
    .addHelpText(
      'after',
      `
Prints { "refs": { "<ref>": "<id or secret>" } } on stdout; logs and errors go to stderr. Applying the same
manifest twice creates nothing new. A bad manifest is refused naming the JSON path at fault; nothing is applied.

Example:
  switchyard apply examples/workspace.json --db switchyard.db
${EXIT_CODES_HELP}`,
    )
    .action((file: string, options: { db?: string }) => applyCommand(file, options));
  configure(apply, version);

  return program;
}
