import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

/** Runs `scripts/<name>.ts` on `root` in a child process, as `npm run -s <name>` would; its exit code and output. */
export function runScript(name: string, root: string): Promise<{ code: number; stdout: string }> {
  const script = join(workspaceDir(import.meta.url), 'scripts', `${name}.ts`);
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      ['--conditions=@gsp/source', '--import', 'tsx', script, root],
      { timeout: 60_000 },
      (err, stdout) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout }),
    ),
  );
}

/** A throwaway repository holding `files` (path to text), removed when the test ends. */
export function throwawayTree(t: { teardown(fn: () => void): void }, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gsp-tree-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
