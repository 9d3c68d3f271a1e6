import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { testKubectl, until } from './helper.js';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

const bin = join(workspaceDir(import.meta.url), 'bin', 'kube-lite.js');

t.test('npx kube-lite serves on the given port with a kubeconfig in the data dir, and stops on SIGTERM', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kube-lite-cli-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, [bin, '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  await until(() => /kubeconfig: (.+)\n/.exec(output), 'the kubeconfig line', 20_000);
  t.match(output, /kube-lite listening on http:\/\/127\.0\.0\.1:\d+/);
  const kubeconfig = join(dataDir, 'kubeconfig');
  t.match(output, `kubeconfig: ${kubeconfig}`);
  t.match(
    output,
    `try: npx gsp-kubectl --kubeconfig ${kubeconfig} get namespaces`,
    "it suggests the pinned kubectl, as npm start's banner does, not whatever kubectl the machine has",
  );
  const namespaces = execFileSync(
    testKubectl(),
    ['--kubeconfig', kubeconfig, '--cache-dir', join(dataDir, 'cache'), 'get', 'namespaces', '-o', 'name'],
    { encoding: 'utf8' },
  );
  t.match(namespaces, 'namespace/default\n');
  t.match(namespaces, 'namespace/kube-system\n');
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'a clean exit');
});

t.test('a bad port is a usage error', async (t) => {
  const child = spawn(process.execPath, [bin, '--port', 'eighty'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.equal(code, 2);
  t.match(stderr, '--port must be an integer from 0 to 65535, got "eighty"');
});
