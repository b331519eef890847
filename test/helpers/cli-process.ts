// A `switchyard start` child process as a user runs it: waits for its banner on stderr, reads its URL and demo key.
import { spawn } from 'node:child_process';

export interface ServingProcess {
  /** The base URL from the banner. */
  readonly base: string;
  /** The demo key from the banner, when one was printed. */
  readonly demoKey: string | undefined;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

interface Teardown {
  teardown(fn: () => void): void;
}

/** Spawns `command args…`, resolves once the banner ("Stop: Ctrl-C") is on stderr; rejects if it exits first. */
export async function startServing(
  t: Teardown,
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ServingProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  // 'close', not 'exit': it comes once stdout and stderr are drained too, so what the process wrote is all read.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL'));
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let gone = false;
  void exited.then(() => (gone = true));
  while (!/Stop: Ctrl-C/.test(err) && !gone && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const base = /running at (http:\/\/\S+)/.exec(err)?.[1];
  if (base === undefined) {
    child.kill('SIGKILL');
    throw new Error(`no banner (exited: ${gone})\nstdout:\n${out}\nstderr:\n${err}`);
  }
  return {
    base,
    demoKey: /Demo API key.*?(sv_[0-9A-Za-z]+)/.exec(err)?.[1],
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}
