import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

const dev = join(workspaceDir(import.meta.url), 'scripts', 'dev.ts');
/** kubectl's check is bounded by 10 s; the rest is tsx starting two processes on a busy machine. */
const EXIT_DEADLINE_MS = 45_000;

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs npm start's script with KUBECONFIG=`kubeconfig` and resolves with its exit code, output and duration. */
async function npmStart(
  t: Test,
  kubeconfig: string,
  deadlineMs = EXIT_DEADLINE_MS,
): Promise<{ code: number | null; output: string; ms: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gsp-dev-cluster-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const started = Date.now();
  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', dev], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DEV_DATA_DIR: dataDir, KUBECONFIG: kubeconfig },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, output, ms: Date.now() - started };
}

/** A kubeconfig file whose current context `context` points at `server`. */
function kubeconfigAt(t: Test, server: string, context: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-kubeconfig-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'cluster', cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'me', user: { token: 'x' } }],
      contexts: [{ name: context, context: { cluster: 'cluster', user: 'me' } }],
      'current-context': context,
    }),
  );
  return kubeconfig;
}

t.test('npm start with KUBECONFIG at a cluster that does not answer names it and stops at once', async (t) => {
  const server = `https://127.0.0.1:${await closedPort()}`;
  const kubeconfig = kubeconfigAt(t, server, 'old-walkthrough');

  const { code, output, ms } = await npmStart(t, kubeconfig);
  t.equal(code, 1, 'exit code 1');
  t.ok(ms < EXIT_DEADLINE_MS, `within ${EXIT_DEADLINE_MS / 1000} s (${ms} ms)`);
  t.match(
    output,
    `using the cluster from KUBECONFIG=${kubeconfig} (context old-walkthrough, server ${server}) ` +
      'instead of starting kube-lite; unset KUBECONFIG to use kube-lite',
    'it says at once which cluster it uses, and how to use kube-lite',
  );
  t.match(output, `the cluster of KUBECONFIG=${kubeconfig} at ${server} does not answer: `, 'it names the failure');
  t.match(output, /connection refused|was refused/, "with kubectl's reason");
  t.notMatch(output, /\n\s+at |"stack":"[^"]/, 'no stack trace');
  t.notMatch(output, /\[(control-plane|api-server)\]/, 'nothing was started');
});

t.test('npm start with KUBECONFIG at a cluster that accepts and never answers gives up, saying why', async (t) => {
  // A stalled API server: TCP is accepted, the TLS handshake never answered.
  const held: Socket[] = [];
  const stalled = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of held) socket.destroy();
    stalled.close();
  });
  const server = `https://127.0.0.1:${(stalled.address() as AddressInfo).port}`;
  const kubeconfig = kubeconfigAt(t, server, 'stalled');
  // kubectl's 10 s bound, its TLS handshake's, and tsx starting on a busy machine.
  const deadline = 90_000;
  const { code, output, ms } = await npmStart(t, kubeconfig, deadline);
  t.equal(code, 1, 'exit code 1');
  t.ok(ms < deadline, `within ${deadline / 1000} s (${ms} ms)`);
  t.match(
    output,
    new RegExp(`at ${server} does not answer: \\S.*; unset KUBECONFIG to use kube-lite`),
    "it names the failure with kubectl's reason, never an empty one",
  );
  t.notMatch(output, /\[(control-plane|api-server)\]/, 'nothing was started');
});

t.test('npm start with KUBECONFIG at a missing file says so and stops', async (t) => {
  const missing = join(tmpdir(), 'gsp-no-such-kubeconfig', 'kubeconfig');
  const { code, output } = await npmStart(t, missing);
  t.equal(code, 1, 'exit code 1');
  t.match(output, `KUBECONFIG=${missing} cannot be used: `);
  t.match(output, 'unset KUBECONFIG to use kube-lite');
  t.notMatch(output, /\n\s+at /, 'no stack trace');
});
