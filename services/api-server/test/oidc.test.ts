import t from 'tap';
import type { Test } from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { JWK } from 'jose';
import { build, PLATFORM_ADMIN } from './helper.js';

/** A minimal OpenID issuer on a real socket: discovery document and a JWKS whose keys can rotate. */
async function startIssuer(t: Test) {
  const keys: JWK[] = [];
  let jwksFetches = 0;
  const server = createServer((req, res) => {
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
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
    return (sub: string, opts: { aud?: string; iss?: string; exp?: string } = {}) =>
      new SignJWT({})
        .setProtectedHeader({ alg, kid })
        .setSubject(sub)
        .setIssuer(opts.iss ?? issuer)
        .setAudience(opts.aud ?? 'gsp-api')
        .setIssuedAt()
        .setExpirationTime(opts.exp ?? '5m')
        .sign(privateKey);
  }
  return { issuer, addKey, fetches: () => jwksFetches };
}

t.test('OIDC bearer tokens', async (t) => {
  const idp = await startIssuer(t);
  const sign = await idp.addKey('k1', 'RS256');
  const { app } = await build(t, { AUTH_JWT_SECRET: undefined, AUTH_OIDC_ISSUER_URL: idp.issuer, AUTH_OIDC_AUDIENCE: 'gsp-api', AUTH_OIDC_JWKS_COOLDOWN: '0' });
  const call = async (tok: string) => app.inject({ url: '/api/v1/platform/audit', headers: { authorization: `Bearer ${tok}` } });

  t.test('a token from the issuer is accepted and its subject carries the bindings', async (t) => {
    t.equal((await call(await sign(PLATFORM_ADMIN))).statusCode, 200);
    t.equal((await call(await sign('nobody'))).statusCode, 403);
  });

  t.test('wrong audience, wrong issuer and expired tokens are 401', async (t) => {
    t.equal((await call(await sign(PLATFORM_ADMIN, { aud: 'someone-else' }))).statusCode, 401);
    t.equal((await call(await sign(PLATFORM_ADMIN, { iss: 'https://evil.example' }))).statusCode, 401);
    t.equal((await call(await sign(PLATFORM_ADMIN, { exp: '-10m' }))).statusCode, 401);
  });

  t.test('a rotated signing key is picked up without restart', async (t) => {
    const signRotated = await idp.addKey('k2', 'ES256');
    const before = idp.fetches();
    t.equal((await call(await signRotated(PLATFORM_ADMIN))).statusCode, 200);
    t.ok(idp.fetches() > before, 'the unknown kid made the server refetch the key set');
  });

  t.test('HS256 tokens are refused when no shared secret is configured', async (t) => {
    const hs = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(PLATFORM_ADMIN).setExpirationTime('5m').sign(new TextEncoder().encode('x'.repeat(32)));
    t.equal((await call(hs)).statusCode, 401);
  });
});
