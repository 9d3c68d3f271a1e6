/**
 * The servers under test for auth.bench.ts and list.bench.ts, in their own process: kube-lite
 * holding BENCH_GAMESERVERS game servers (default 1,000), an OIDC issuer and two control planes.
 */
import { createWriteStream } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { startKubeLite } from '@gsp/kube-lite';
import { signingKey, startOidcProvider } from '@gsp/test-kit/oidc';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';

const kube = await startKubeLite({ port: 0 });
const gameServerCount = Number(process.env.BENCH_GAMESERVERS ?? 1000);
const custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
for (let i = 0; i < gameServerCount; i += 50) {
  await Promise.all(
    Array.from({ length: Math.min(50, gameServerCount - i) }, (_, j) =>
      custom.createNamespacedCustomObject({
        group: 'agones.dev',
        version: 'v1',
        namespace: 'default',
        plural: 'gameservers',
        body: {
          apiVersion: 'agones.dev/v1',
          kind: 'GameServer',
          metadata: {
            name: `bench-${String(i + j).padStart(4, '0')}`,
            labels: { 'gsp.dev/profile': 'bench', team: (i + j) % 2 ? 'red' : 'blue' },
          },
          spec: {
            ports: [{ name: 'game', containerPort: 7777, protocol: 'UDP' }],
            template: { spec: { containers: [{ name: 'gameserver', image: 'example/game:1.0' }] } },
          },
        },
      }),
    ),
  );
}

const key = await signingKey('bench', 'RS256');
// Closed on SIGTERM, below.
const idpTeardowns: (() => unknown)[] = [];
const idp = await startOidcProvider(
  { teardown: (fn) => void idpTeardowns.push(fn) },
  { keys: [key], clients: [{ id: 'control-plane', secret: 'unused', redirectUri: 'http://127.0.0.1/cb' }] },
);
const issuer = idp.issuer;
const token = await idp.sign(
  key,
  'bench-viewer',
  { preferred_username: 'bench-viewer', groups: ['viewers'] },
  { exp: '1h' },
);

const common = {
  KUBECONFIG: kube.kubeconfigPath,
  POD_NAMESPACE: 'default',
  RATE_LIMIT_MAX: '1000000000',
  LOG_LEVEL: 'warn',
};
// Audit lines are written for real, to /dev/null, so their cost is part of the figures.
const auditStream = createWriteStream('/dev/null');
const none = await buildApp(loadConfig({ ...common, AUTH_MODE: 'none' }), { auditStream, logger: false });
const password = 'bench-password-123';
const authed = await buildApp(
  loadConfig({
    ...common,
    AUTH_MODE: 'apikey,basic,oidc',
    AUTH_BASIC_USER: 'bench',
    AUTH_BASIC_PASSWORD: password,
    AUTH_BASIC_ROLE: 'viewer',
    AUTH_OIDC_ISSUER_URL: issuer,
    AUTH_OIDC_CLIENT_ID: 'control-plane',
    AUTH_OIDC_ROLE_CLAIM: 'groups',
    AUTH_OIDC_ROLE_MAPPING: 'viewers=viewer',
  }),
  { auditStream, logger: false },
);
await none.listen({ port: 0, host: '127.0.0.1' });
await authed.listen({ port: 0, host: '127.0.0.1' });

const basic = `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`;
// The anonymous admin of the AUTH_MODE=none instance creates the key; the other instance learns it from its watch.
const created = await none.inject({
  method: 'POST',
  url: '/api/v1/apikeys',
  payload: { name: 'bench', role: 'viewer' },
});
if (created.statusCode !== 201) throw new Error(`creating the bench key: ${created.statusCode} ${created.body}`);
const apiKey = (created.json() as { key: string }).key;
for (
  let i = 0;
  (await authed.inject({ url: '/api/v1/session', headers: { 'x-api-key': apiKey } })).statusCode !== 200;
  i++
) {
  if (i > 500) throw new Error('the bench key did not reach the authenticated instance');
  await new Promise((r) => setTimeout(r, 10));
}

process.once('SIGTERM', async () => {
  await none.close();
  await authed.close();
  for (const close of idpTeardowns) await close();
  await kube.close();
  process.exit(0);
});
// The bench asks for this process's CPU time to report the cost of each request.
process.on('message', (m) => {
  if (m === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  }
});
// Every game server is in the cache before anything is measured.
for (
  let i = 0;
  (await authed.inject({ url: '/api/v1/gameservers', headers: { 'x-api-key': apiKey } })).json<unknown[]>().length <
  gameServerCount;
  i++
) {
  if (i > 1000) throw new Error('the game servers did not reach the control plane');
  await new Promise((r) => setTimeout(r, 10));
}

process.send?.({
  kube: kube.url,
  gameServers: gameServerCount,
  none: (none.server.address() as AddressInfo).port,
  authed: (authed.server.address() as AddressInfo).port,
  apiKey,
  basic,
  bearer: `Bearer ${token}`,
});
