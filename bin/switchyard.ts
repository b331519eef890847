#!/usr/bin/env node
// The switchyard CLI entry: parses the command line and maps every outcome to the exit codes in cli/exit-codes.ts.
import { CommanderError } from 'commander';
import { exitCodeOf, UsageError } from './cli/exit-codes.js';
import { buildProgram } from './cli/program.js';

const program = buildProgram();
program.parseAsync(process.argv.slice(2), { from: 'user' }).catch((error: unknown) => {
  // Commander has already printed its own message (and help) for parse errors, help and --version.
  if (!(error instanceof CommanderError)) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = error instanceof UsageError ? '\nRun "switchyard --help" for usage.' : '';
    process.stderr.write(`switchyard: ${message}${hint}\n`);
  }
  process.exitCode = exitCodeOf(error);
});
