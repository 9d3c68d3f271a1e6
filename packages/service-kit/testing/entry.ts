import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The node arguments that run a TypeScript entry file, named by its source path (`new URL('../src/server.ts',
 * import.meta.url)`): from source through tsx when the test itself runs from source, or the compiled `.js` beside
 * it when the test runs from its build (`dist/test/`, where `../src/server.ts` is `dist/src/server.ts`, which
 * tsc wrote as `server.js`). A compiled entry starts in about half the CPU: no module-loader hook.
 */
export function nodeEntry(file: string | URL): string[] {
  const path = typeof file === 'string' ? file : fileURLToPath(file);
  if (!path.endsWith('.ts')) return [path];
  if (existsSync(path)) return ['--conditions=@gsp/source', '--import', 'tsx', path];
  const compiled = `${path.slice(0, -'.ts'.length)}.js`;
  if (!existsSync(compiled)) throw new Error(`neither ${path} nor ${compiled} exists`);
  return [compiled];
}

/**
 * The workspace folder (the nearest one with a package.json) of a module, from its `import.meta.url`: the same
 * whether the test runs from `test/` or from its build in `dist/test/`. For files tests read beside their sources
 * (fixtures, READMEs, built pages).
 */
export function workspaceDir(moduleUrl: string | URL): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
  return dir;
}

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
 * Runs a service's entry file (its `server.ts`, as `nodeEntry` finds it) with `env` and nothing else but PATH,
 * until it exits (killed after `timeoutMs`); resolves with its exit code and standard error.
 */
export async function runEntry(
  t: EntryTest,
  file: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, nodeEntry(file), {
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
