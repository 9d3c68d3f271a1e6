import t from 'tap';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

const ORG = 'acme';

t.test('access information and kubeconfig downloads', async (t) => {
  const { app } = await build(t, { PROXY_PUBLIC_URL: 'https://proxy.example.test:8443/', KUBECONFIG_TOKEN_TTL: '30m' });
  await seedTenant(app, ORG, { olivia: 'operator', victor: 'viewer' });
  const { id } = await registerCluster(app, ORG, 'eu-1');

  t.test('any tenant member reads the access information', async (t) => {
    const res = await app.inject({
      url: `/api/v1/tenants/${ORG}/clusters/${id}/access`,
      headers: await bearer('victor'),
    });
    t.equal(res.statusCode, 200);
    t.same(res.json(), {
      cliAccess: { enabled: true, source: 'default', envPinned: false, record: null },
      proxyUrl: `https://proxy.example.test:8443/clusters/${id}`,
    });
  });

  t.test(
    'an operator downloads a kubeconfig with a token for that cluster, verifiable with the published keys',
    async (t) => {
      const res = await app.inject({
        url: `/api/v1/tenants/${ORG}/clusters/${id}/kubeconfig`,
        headers: await bearer('olivia'),
      });
      t.equal(res.statusCode, 200);
      t.match(res.headers['content-type'], 'application/yaml');
      t.match(res.body, `server: "https://proxy.example.test:8443/clusters/${id}"`);
      const token = /token: "([^"]+)"/.exec(res.body)?.[1] ?? '';
      const jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json();
      const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
        audience: 'gsp-cluster-proxy',
        issuer: 'gsp-api-server',
      });
      t.equal(payload.sub, 'olivia');
      t.equal(payload.cluster, id);
      t.ok((payload.exp ?? 0) - (payload.iat ?? 0) === 1800, 'lives KUBECONFIG_TOKEN_TTL');
    },
  );

  t.test('a viewer may not download a kubeconfig', async (t) => {
    const res = await app.inject({
      url: `/api/v1/tenants/${ORG}/clusters/${id}/kubeconfig`,
      headers: await bearer('victor'),
    });
    t.equal(res.statusCode, 403);
  });

  t.test('an unknown cluster is 404', async (t) => {
    const res = await app.inject({
      url: `/api/v1/tenants/${ORG}/clusters/nope/access`,
      headers: await bearer('olivia'),
    });
    t.equal(res.statusCode, 404);
  });

  t.test('while the switch is off for the cluster the download is 410 and access reports it', async (t) => {
    const put = await app.inject({
      method: 'PUT',
      url: `/api/v1/tenants/${ORG}/clusters/${id}/feature-flags/cli_access.enabled`,
      headers: await bearer(PLATFORM_ADMIN),
      payload: { value: false },
    });
    t.equal(put.statusCode, 200);
    const res = await app.inject({
      url: `/api/v1/tenants/${ORG}/clusters/${id}/kubeconfig`,
      headers: await bearer('olivia'),
    });
    t.equal(res.statusCode, 410);
    t.match(res.headers['content-type'], 'application/problem+json');
    t.match(res.json().detail, 'CLI access is disabled by platform policy');
    const access = await app.inject({
      url: `/api/v1/tenants/${ORG}/clusters/${id}/access`,
      headers: await bearer('olivia'),
    });
    t.match(access.json(), { cliAccess: { enabled: false, source: 'cluster', envPinned: false } });
  });
});
