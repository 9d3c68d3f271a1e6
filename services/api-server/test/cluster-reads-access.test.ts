import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';
import { ConfigError, loadConfig } from '../src/config/index.js';

const ORG = 'acme';
const flagUrl = (id: string) => `/api/v1/tenants/${ORG}/clusters/${id}/feature-flags/cli_access.enabled`;
const PLATFORM_FLAG = '/api/v1/platform/feature-flags/cli_access.enabled';

interface CliAccess {
  enabled: boolean;
  source: string;
  envPinned: boolean;
  record: { actor: string | null; reason: string | null; expiresAt: string | null } | null;
  message: string | null;
}

async function listed(app: FastifyInstance, subject: string): Promise<Map<string, CliAccess>> {
  const res = await app.inject({ url: `/api/v1/tenants/${ORG}/clusters`, headers: await bearer(subject) });
  if (res.statusCode !== 200) throw new Error(`list: ${res.statusCode} ${res.body}`);
  const clusters = res.json().clusters as { id: string; cliAccess: CliAccess }[];
  return new Map(clusters.map((c) => [c.id, c.cliAccess]));
}

async function readOne(app: FastifyInstance, subject: string, id: string): Promise<CliAccess> {
  const res = await app.inject({ url: `/api/v1/tenants/${ORG}/clusters/${id}`, headers: await bearer(subject) });
  if (res.statusCode !== 200) throw new Error(`read: ${res.statusCode} ${res.body}`);
  return res.json().cliAccess as CliAccess;
}

async function accessRoute(app: FastifyInstance, subject: string, id: string): Promise<unknown> {
  const res = await app.inject({ url: `/api/v1/tenants/${ORG}/clusters/${id}/access`, headers: await bearer(subject) });
  return res.json().cliAccess;
}

async function kubeconfigRefusal(app: FastifyInstance, subject: string, id: string): Promise<string> {
  const res = await app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${id}/kubeconfig`,
    headers: await bearer(subject),
  });
  if (res.statusCode !== 410) throw new Error(`kubeconfig: expected 410, got ${res.statusCode}`);
  return res.json().detail as string;
}

const withoutMessage = ({ message: _message, ...rest }: CliAccess) => rest;

t.test('the cluster reads answer each cluster CLI access state, as GET .../access does', async (t) => {
  const { app } = await build(t, { PROXY_TUNNEL_PUBLIC_URL: 'https://tunnel.example.test:8444/' });
  await seedTenant(app, ORG, { ada: 'admin', otto: 'operator', vic: 'viewer' });
  const eu = await registerCluster(app, ORG, 'eu-1');
  const us = await registerCluster(app, ORG, 'us-1');

  t.test('every cluster is on by default, with no record and no message', async (t) => {
    const list = await listed(app, 'vic');
    for (const id of [eu.id, us.id]) {
      t.same(list.get(id), { enabled: true, source: 'default', envPinned: false, record: null, message: null });
      t.same(await readOne(app, 'vic', id), list.get(id), 'the single read answers the same');
    }
  });

  t.test(
    'an operator switches a cluster off: the reads name them, the reason, the expiry and the refusal',
    async (t) => {
      const expiresAt = new Date(Date.now() + 10 * 60_000).toISOString();
      const put = await app.inject({
        method: 'PUT',
        url: flagUrl(eu.id),
        headers: await bearer('otto'),
        payload: { value: false, reason: 'node upgrade', expiresAt },
      });
      t.equal(put.statusCode, 200);
      const list = await listed(app, 'vic');
      const off = list.get(eu.id);
      t.match(off, {
        enabled: false,
        source: 'cluster',
        envPinned: false,
        record: { value: false, actor: 'otto', actorRole: 'operator', reason: 'node upgrade', expiresAt },
      });
      t.same(withoutMessage(off!), await accessRoute(app, 'vic', eu.id), 'the same state as GET .../access');
      t.equal(
        `${off?.message}; kubeconfig downloads are disabled`,
        await kubeconfigRefusal(app, 'otto', eu.id),
        'message is the sentence the kubeconfig download is refused with',
      );
      t.match(
        off?.message,
        /^CLI access is disabled by the tenant's own decision for cluster .*tenant operator otto.*node upgrade/,
      );
      t.same(await readOne(app, 'vic', eu.id), off, 'the single read answers the same');
      t.same(list.get(us.id)?.enabled, true, 'the other cluster keeps access');
    },
  );

  t.test('a platform-wide off: tenant members are not told the platform admin who did it', async (t) => {
    const put = await app.inject({
      method: 'PUT',
      url: PLATFORM_FLAG,
      headers: await bearer(PLATFORM_ADMIN),
      payload: { value: false, reason: 'incident 42' },
    });
    t.equal(put.statusCode, 200);
    const asViewer = (await listed(app, 'vic')).get(us.id);
    t.match(asViewer, { enabled: false, source: 'platform', record: { actor: null, reason: 'incident 42' } });
    t.match(asViewer?.message, /set by a platform admin for the whole platform: "incident 42"/);
    t.notMatch(asViewer?.message, PLATFORM_ADMIN);
    t.same(withoutMessage(asViewer!), await accessRoute(app, 'vic', us.id), 'the same state as GET .../access');
    t.equal(`${asViewer?.message}; kubeconfig downloads are disabled`, await kubeconfigRefusal(app, 'ada', us.id));
    t.equal((await readOne(app, 'vic', us.id)).record?.actor, null, 'nor by the single read');

    const asAdmin = (await listed(app, PLATFORM_ADMIN)).get(us.id);
    t.equal(asAdmin?.record?.actor, PLATFORM_ADMIN, 'a platform admin is told');
    t.equal((await listed(app, 'vic')).get(eu.id)?.source, 'cluster', "the cluster's own override still decides");

    const clear = await app.inject({ method: 'DELETE', url: PLATFORM_FLAG, headers: await bearer(PLATFORM_ADMIN) });
    t.equal(clear.statusCode, 200);
    t.same((await listed(app, 'vic')).get(us.id)?.message, null, 'back on: no message');
  });

  t.test('the list costs the same database queries for five clusters as for two', async (t) => {
    const count = async () => {
      const pool = app.pg;
      const query = pool.query.bind(pool);
      let queries = 0;
      // Own property over the prototype's method, for the duration of one request.
      Object.assign(pool, { query: (...args: Parameters<typeof query>) => (queries++, query(...args)) });
      try {
        await listed(app, 'vic');
      } finally {
        Reflect.deleteProperty(pool, 'query');
      }
      return queries;
    };
    await count(); // warm the caches (flag values, role bindings)
    const withTwo = await count();
    for (const name of ['ap-1', 'ap-2', 'ap-3']) await registerCluster(app, ORG, name);
    await count();
    const withFive = await count();
    t.equal(withFive, withTwo, `${withTwo} queries either way`);
  });

  t.test('registering a cluster and rotating its agent token answer where the agent dials', async (t) => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/tenants/${ORG}/clusters`,
      headers: await bearer('otto'),
      payload: { name: 'sa-1' },
    });
    t.equal(res.statusCode, 201);
    t.match(res.json(), { name: 'sa-1', agentToken: /^gspat_/, tunnelUrl: 'https://tunnel.example.test:8444' });
    t.equal(res.headers['cache-control'], 'no-store', 'a token is never cached');
    const rotated = await app.inject({
      method: 'POST',
      url: `/api/v1/tenants/${ORG}/clusters/${res.json().id}/agent-token`,
      headers: await bearer('otto'),
    });
    t.equal(rotated.statusCode, 200);
    t.equal(rotated.json().tunnelUrl, 'https://tunnel.example.test:8444');
  });

  t.test('the OpenAPI document describes cliAccess.message and tunnelUrl', async (t) => {
    const doc = (await app.inject('/openapi.json')).body;
    t.match(doc, /"message":\{"type":\["string","null"\]/);
    t.match(doc, /"tunnelUrl":\{"type":"string"/);
  });
});

t.test('a pin on the API server: the message says SERVICE_CLI_ACCESS_ENABLED decides', async (t) => {
  const { app } = await build(t, { SERVICE_CLI_ACCESS_ENABLED: 'false' });
  await seedTenant(app, ORG, { vic: 'viewer' });
  const { id } = await registerCluster(app, ORG, 'eu-1');
  const access = (await listed(app, 'vic')).get(id);
  t.match(access, { enabled: false, source: 'env', envPinned: true, record: null });
  t.match(access?.message, /pinned by SERVICE_CLI_ACCESS_ENABLED on the API server/);
});

t.test('PROXY_TUNNEL_PUBLIC_URL defaults to the local proxy tunnel port and must be an http(s) URL', async (t) => {
  const secret = { AUTH_JWT_SECRET: 'a-development-secret-of-32-bytes-or-more' };
  t.equal(loadConfig(secret).proxyTunnelPublicUrl, 'https://127.0.0.1:8444');
  t.throws(() => loadConfig({ ...secret, PROXY_TUNNEL_PUBLIC_URL: 'ftp://proxy' }), ConfigError);
  t.throws(() => loadConfig({ ...secret, PROXY_TUNNEL_PUBLIC_URL: 'not a url' }), /PROXY_TUNNEL_PUBLIC_URL/);
});
