import { spawn } from 'node:child_process';
import net from 'node:net';

/** What these helpers need of a test: a teardown. */
export interface EntryTest {
  teardown(fn: () => unknown): void;
}

/** A port something else already listens on (on 127.0.0.1), held until the test ends. */
export async function occupiedPort(t: EntryTest): Promise<number> {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => busy.close());
  return (busy.address() as net.AddressInfo).port;
}

/**
 * Runs a service's entry file (its `server.ts`, from source) with `env` and nothing else but PATH,
 * until it exits (killed after `timeoutMs`); resolves with its exit code and standard error.
 */
export async function runEntry(
  t: EntryTest,
  file: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', file], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stderr };
}
