import t from 'tap';
import type { Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import type { JWK } from 'jose';
import { build, JWT_AUDIENCE, JWT_SECRET, PLATFORM_ADMIN } from './helper.js';

/*
 * A `sub` is unique only within its issuer, so the API server names an OIDC caller
 * `<issuer>#<sub>` (the issuer exactly as in the token, as kube-apiserver names OIDC users):
 * PLATFORM_ADMINS, tenant members, audit actors and kubeconfig subjects all use that string,
 * e.g. `https://issuer.example#alice`. A bare `alice` is only ever the HS256 development token's.
 */

/** A minimal OpenID issuer on a real socket: discovery document and a JWKS whose keys can rotate. */
async function startIssuer(t: Test) {
  const keys: JWK[] = [];
  let jwksFetches = 0;
  const server = createServer((req, res) => {
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration')
      return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    if (req.url === '/jwks') {
      jwksFetches += 1;
      return res.end(JSON.stringify({ keys }));
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function addKey(kid: string, alg: 'RS256' | 'ES256') {
    const { publicKey, privateKey } = await generateKeyPair(alg);
    keys.push({ ...(await exportJWK(publicKey)), kid, alg, use: 'sig' });
    return (sub: string, opts: { aud?: string; iss?: string; exp?: string | null } = {}) => {
      const jwt = new SignJWT({})
        .setProtectedHeader({ alg, kid })
        .setSubject(sub)
        .setIssuer(opts.iss ?? issuer)
        .setAudience(opts.aud ?? 'gsp-api')
        .setIssuedAt();
      if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? '5m');
      return jwt.sign(privateKey);
    };
  }
  return { issuer, addKey, fetches: () => jwksFetches };
}

t.test('OIDC bearer tokens', async (t) => {
  const idp = await startIssuer(t);
  const sign = await idp.addKey('k1', 'RS256');
  const { app } = await build(t, {
    AUTH_JWT_SECRET: undefined,
    AUTH_OIDC_ISSUER_URL: idp.issuer,
    AUTH_OIDC_AUDIENCE: 'gsp-api',
    AUTH_OIDC_JWKS_COOLDOWN: '0',
    PLATFORM_ADMINS: `${idp.issuer}#${PLATFORM_ADMIN}`,
  });
  const call = async (tok: string) =>
    app.inject({ url: '/api/v1/platform/audit', headers: { authorization: `Bearer ${tok}` } });

  t.test('a token from the issuer is accepted and its subject carries the bindings', async (t) => {
    t.equal((await call(await sign(PLATFORM_ADMIN))).statusCode, 200);
    t.equal((await call(await sign('nobody'))).statusCode, 403);
  });

  t.test('wrong audience, wrong issuer and expired tokens are 401', async (t) => {
    t.equal((await call(await sign(PLATFORM_ADMIN, { aud: 'someone-else' }))).statusCode, 401);
    t.equal((await call(await sign(PLATFORM_ADMIN, { iss: 'https://evil.example' }))).statusCode, 401);
    t.equal((await call(await sign(PLATFORM_ADMIN, { exp: '-10m' }))).statusCode, 401);
  });

  t.test('a token without exp is 401', async (t) => {
    t.equal((await call(await sign(PLATFORM_ADMIN, { exp: null }))).statusCode, 401);
  });

  t.test('a rotated signing key is picked up without restart', async (t) => {
    const signRotated = await idp.addKey('k2', 'ES256');
    const before = idp.fetches();
    t.equal((await call(await signRotated(PLATFORM_ADMIN))).statusCode, 200);
    t.ok(idp.fetches() > before, 'the unknown kid made the server refetch the key set');
  });

  t.test('HS256 tokens are refused when no shared secret is configured', async (t) => {
    const hs = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(PLATFORM_ADMIN)
      .setAudience(JWT_AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('x'.repeat(32)));
    t.equal((await call(hs)).statusCode, 401);
  });
});

t.test('an OIDC subject counts only together with its issuer', async (t) => {
  const idp = await startIssuer(t);
  const sign = await idp.addKey('k1', 'ES256');
  const oidcEnv = { AUTH_OIDC_ISSUER_URL: idp.issuer, AUTH_OIDC_AUDIENCE: 'gsp-api' };
  const as = async (sub: string) => ({ authorization: `Bearer ${await sign(sub)}` });

  t.test('a PLATFORM_ADMINS entry "alice" does not make the issuer\'s alice a platform admin', async (t) => {
    const { app } = await build(t, { ...oidcEnv, PLATFORM_ADMINS: 'alice' });
    t.equal((await app.inject({ url: '/api/v1/platform/audit', headers: await as('alice') })).statusCode, 403);
  });

  t.test('listed as "<issuer>#alice", she is one; members, audit and kubeconfigs name that string', async (t) => {
    const alice = `${idp.issuer}#alice`;
    const bob = `${idp.issuer}#bob`;
    const { app } = await build(t, { ...oidcEnv, PLATFORM_ADMINS: alice });
    t.equal((await app.inject({ url: '/api/v1/platform/audit', headers: await as('alice') })).statusCode, 200);

    const put = await app.inject({
      method: 'PUT',
      url: `/api/v1/tenants/acme/members/${encodeURIComponent(bob)}`,
      headers: await as('alice'),
      payload: { role: 'operator' },
    });
    t.equal(put.statusCode, 200);
    t.equal(put.json().subject, bob);
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/tenants/acme/clusters',
      headers: await as('bob'),
      payload: { name: 'eu-1' },
    });
    t.equal(created.statusCode, 201, 'the issuer\'s bob holds the role granted to "<issuer>#bob"');

    const auditRes = await app.inject({ url: '/api/v1/platform/audit', headers: await as('alice') });
    const audit: { action: string }[] = auditRes.json().items;
    t.match(
      audit.find((e) => e.action === 'tenants.members.set'),
      { actor: alice, details: { subject: bob } },
    );
    t.match(
      audit.find((e) => e.action === 'clusters.registered'),
      { actor: bob },
    );

    const kubeconfigUrl = `/api/v1/tenants/acme/clusters/${created.json().id}/kubeconfig`;
    const kubeconfig = await app.inject({ url: kubeconfigUrl, headers: await as('bob') });
    t.equal(kubeconfig.statusCode, 200);
    t.match(kubeconfig.body, `user: ${JSON.stringify(bob)}`);
    const kubeToken = /token: "([^"]+)"/.exec(kubeconfig.body)?.[1] ?? '';
    t.equal(decodeJwt(kubeToken).sub, bob, 'the token names "<issuer>#bob", whom the proxy impersonates');
  });

  t.test('a bare "alice" in PLATFORM_ADMINS still matches the HS256 development token', async (t) => {
    const { app } = await build(t, { ...oidcEnv, PLATFORM_ADMINS: 'alice' });
    const hs = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setAudience(JWT_AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const res = await app.inject({ url: '/api/v1/platform/audit', headers: { authorization: `Bearer ${hs}` } });
    t.equal(res.statusCode, 200);
  });
});
