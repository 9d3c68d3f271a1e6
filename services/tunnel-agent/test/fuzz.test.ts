import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Test } from 'tap';
import fc from 'fast-check';
import { startKubeLite } from '@gsp/kube-lite';
import { operationsOf, problemWithAnswer, requests, send } from '@gsp/service-kit/testing';
import type { OpenApiDocument } from '@gsp/service-kit/testing';
import { Tally } from '@gsp/service-kit/testing/tally';
import { build, registerCluster, seedTenant, until } from '@gsp/api-server/testing';
import { buildAgentApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

/** How many requests one run generates; FUZZ_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);

const proxyServer = fileURLToPath(import.meta.resolve('@gsp/cluster-proxy/server'));

/**
 * The real cluster proxy, as a process of its own (its package depends on this one), on free
 * ports, against the API server's tables; resolves with its tunnel URL.
 */
async function startProxy(t: Test, databaseUrl: string, apiServerUrl: string): Promise<string> {
  const child = spawn(process.execPath, nodeEntry(proxyServer), {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      API_SERVER_URL: apiServerUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      TUNNEL_PORT: '0',
      METRICS_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    void exited.then(() => reject(new Error('the cluster proxy exited before it listened')));
    lines.on('line', (line) => {
      const tunnelUrl = /"tunnelUrl":"([^"]+)"/.exec(line)?.[1];
      if (tunnelUrl !== undefined) resolve(tunnelUrl);
    });
  });
}

t.test(
  'every route of the health port answers generated bad input without a 5xx, errors as problem+json',
  async (t) => {
    const api = await build(t);
    const apiUrl = await api.app.listen({ port: 0, host: '127.0.0.1' });
    await seedTenant(api.app, 'acme', { olivia: 'operator' });
    const cluster = await registerCluster(api.app, 'acme', 'fuzzed');
    const kube = await startKubeLite({ port: 0 });
    t.teardown(() => kube.close());
    const tunnelUrl = await startProxy(t, api.databaseUrl, apiUrl);

    const backoff = { AGENT_BACKOFF_MAX: '200ms', AGENT_BACKOFF_INITIAL: '20ms' };
    const env = {
      PROXY_TUNNEL_URL: tunnelUrl,
      CLUSTER_ID: cluster.id,
      AGENT_TOKEN: cluster.agentToken,
      KUBE_API_URL: kube.url,
      ...backoff,
    };
    const agent = await buildAgentApp(loadConfig(env), false);
    t.teardown(() => agent.close());
    await agent.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(agent.app.server.address() as AddressInfo).port}`;
    // Healthy: connected, so that /readyz answers 200 and any 5xx is a fault.
    await until('the agent to connect', () => (agent.agent.connected ? true : undefined), 20_000);

    const client = new http.Agent({ keepAlive: true, maxSockets: 4 });
    t.teardown(() => client.destroy());
    const described = await send(
      url,
      { method: 'GET', path: '/openapi.json', headers: {}, route: 'GET /openapi.json' },
      client,
    );
    t.equal(described.status, 200);
    const ops = operationsOf(JSON.parse(described.body) as OpenApiDocument);
    t.equal(ops.length, 3, `${ops.length} operations in /openapi.json`);

    const tally = new Tally();
    const startedAt = Date.now();
    await fc.assert(
      // Nothing on this port takes credentials; the generator's (good and bad) must change nothing.
      fc.asyncProperty(requests(ops, { credentials: [{}, { authorization: 'Bearer anything' }] }), async (req) => {
        const res = await send(url, req, client);
        tally.count(res.status);
        const wrong = problemWithAnswer(res);
        if (wrong) throw new Error(`${req.method} ${req.path} (${req.route}) ${wrong}`);
      }),
      { numRuns: RUNS, includeErrorInReport: true },
    );
    t.comment(
      `${tally.sent} generated requests in ${Date.now() - startedAt} ms over ${ops.length} operations; ` +
        `statuses ${tally}`,
    );
    t.ok(tally.statuses.has(200), 'some requests were answered');
  },
);
