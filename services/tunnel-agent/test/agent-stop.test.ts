import { spawn } from 'node:child_process';
import https from 'node:https';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Test } from 'tap';
import { startKubeLite } from '@gsp/kube-lite';
import { kubeTarget } from '../src/kube.js';
import { freePort, request, startReplicas, until, untilHolding } from './replicas.js';
import type { Replica } from './replicas.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

/**
 * The agent stopping while its proxy disappears: every wait of the drain ends by AGENT_DRAIN_GRACE,
 * and a second signal during the drain exits at once. kube-lite is the cluster; the watches through
 * the proxy are kubectl's `get -w`, which never end by themselves, so the drain lasts its whole grace.
 */

const SERVER = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const WATCH = '/api/v1/namespaces/default/pods?watch=1';

// One proxy, API server and kube-lite for the file (a test that kills the proxy starts it again).
const setup = await startReplicas(t, 1);
const proxy = setup.replicas[0] as Replica;
const kubeLite = await startKubeLite({ port: 0, stepMs: 20 });
t.teardown(() => kubeLite.close());
const kubeUrl = kubeLite.url;

/** `count` watches through `proxy` as kubectl opens them; resolves once the cluster answered each. */
async function watches(t: Test, count: number): Promise<void> {
  let answered = 0;
  for (let i = 0; i < count; i++) {
    const url = `${proxy.url}/clusters/${setup.clusterId}${WATCH}`;
    const headers = { authorization: `Bearer ${setup.token}` };
    const req = https.get(url, { agent: false, ca: setup.ca, headers }, (res) => {
      if (res.statusCode === 200) answered++;
      res.resume().on('error', () => undefined);
    });
    req.on('error', () => undefined);
    t.teardown(() => void req.destroy());
  }
  await until('the watches to be answered', () => (answered === count ? true : undefined), 15_000, 10);
}

/** An agent process (src/server.ts) of the cluster, its log read line by line as it comes. */
async function agentProcess(t: Test, drainGrace: string) {
  const port = await freePort();
  const child = spawn(process.execPath, nodeEntry(SERVER), {
    env: {
      PATH: process.env.PATH ?? '',
      ...setup.agentEnv,
      KUBE_API_URL: kubeUrl,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      AGENT_DRAIN_GRACE: drainGrace,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  for (const stream of [child.stdout, child.stderr]) stream.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL'));
  await until(
    'the agent process to connect',
    async () =>
      (await request(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
    30_000,
    50,
  );
  const logged = (message: string) =>
    until(`the agent to log "${message}"`, () => (log.includes(`"msg":"${message}"`) ? true : undefined), 10_000, 5);
  return { child, exited, logged, log: () => log };
}

/** Milliseconds from `from` until `exited` resolves, with the exit code. */
async function exitAfter(exited: Promise<number | null>, from: number) {
  const code = await exited;
  return { code, ms: Date.now() - from };
}

t.test('a second SIGTERM during the drain exits at once, with 1, saying so', async (t) => {
  const agent = await agentProcess(t, '60s');
  await watches(t, 2);
  agent.child.kill('SIGTERM');
  await agent.logged('draining the tunnels');
  const secondAt = Date.now();
  agent.child.kill('SIGTERM');
  const { code, ms } = await exitAfter(agent.exited, secondAt);
  t.comment(`exited ${ms} ms after the second SIGTERM`);
  t.equal(code, 1, 'a failure: the watches in flight were cut');
  t.ok(ms < 3000, `at once, not at the end of the 60 s grace (${ms} ms)`);
  t.match(agent.log(), 'SIGTERM during the drain: exiting at once', 'the log says why');
});

t.test('an agent whose proxy is killed while it drains kubectl watches exits within AGENT_DRAIN_GRACE', async (t) => {
  const agent = await agentProcess(t, '3s');
  await watches(t, 4);
  const gets = setup.kubectlGet(proxy, '/api/v1/namespaces').catch(() => undefined);
  const signalledAt = Date.now();
  agent.child.kill('SIGTERM');
  await agent.logged('draining the tunnels');
  const killed = proxy.stop('SIGKILL');
  await gets;
  const { code, ms } = await exitAfter(agent.exited, signalledAt);
  t.comment(`exited ${ms} ms after SIGTERM, with ${code}`);
  t.ok(ms < 3000 + 3000, `within AGENT_DRAIN_GRACE (3 s) and a margin (${ms} ms)`);
  t.equal(code, 0, 'cleanly: nothing was left to wait for');
  await killed;
  await proxy.start();
});

t.test('an agent whose proxy goes silent while it drains stops by AGENT_DRAIN_GRACE, not after it', async (t) => {
  const graceMs = 600;
  const kube = await kubeTarget({
    url: kubeUrl,
    token: 'agent-own-credential',
    clientCertFile: undefined,
    clientKeyFile: undefined,
    caFile: undefined,
    insecureSkipTlsVerify: false,
  });
  t.teardown(() => kube.close());
  // An agent in this process: its stop is measured without a process's start and exit around it.
  const agent = setup.agent({ kube, drainGraceMs: graceMs });
  await untilHolding(agent, ['r1']);
  await watches(t, 2);
  const stopAt = Date.now();
  const stopped = agent.stop();
  // A node gone, a proxy frozen: its connection stays open and nothing answers on it.
  void proxy.stop('SIGSTOP');
  t.teardown(() => proxy.stop('SIGKILL'));
  await stopped;
  const ms = Date.now() - stopAt;
  t.comment(`stopped ${ms} ms after stop() with AGENT_DRAIN_GRACE ${graceMs} ms`);
  t.ok(ms < graceMs + 400, `the proxy's silence is not waited for past the grace (${ms} ms)`);
  t.equal(agent.tunnels, 0, 'every tunnel is closed');
});
