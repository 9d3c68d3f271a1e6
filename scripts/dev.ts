/**
 * `npm start`: runs every service of the platform locally, wired together, on embedded defaults
 * (scripts/dev/runner.ts), and passes Ctrl-C on to it once.
 *
 * A terminal's Ctrl-C signals its whole foreground process group, and npm passes SIGINT on as
 * well: run in this process's group, every service and the embedded PostgreSQL would get it once
 * or twice and stop in any order (the database first, and every pool logged its connections
 * terminated). So the runner gets a session of its own, out of the terminal's reach, and only
 * this process hears the terminal: it asks the runner once to stop, and the runner stops the
 * services in the reverse order of their start, then the database. This process exits with the
 * runner's exit code.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const runner = spawn(process.execPath, [...process.execArgv, join(import.meta.dirname, 'dev', 'runner.ts')], {
  detached: true,
  // The IPC channel closes when this process dies, however it dies: the runner then stops too.
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
let asked = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (asked) return;
    asked = true;
    runner.kill('SIGTERM');
  });
}
runner.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)));
