import t from 'tap';
import { SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { build, JWT_AUDIENCE, JWT_SECRET, PLATFORM_ADMIN } from './helper.js';

/**
 * HS256 tokens signed with AUTH_JWT_SECRET (development and tests) must expire and must name
 * this API server in `aud`, like any other bearer token it accepts.
 */
function sign(subject: string, opts: { aud?: string | null; exp?: string | null } = {}): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(subject).setIssuedAt();
  const aud = opts.aud === undefined ? JWT_AUDIENCE : opts.aud;
  const exp = opts.exp === undefined ? '5m' : opts.exp;
  if (aud !== null) jwt.setAudience(aud);
  if (exp !== null) jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(JWT_SECRET));
}

/** A route only platform admins may call. */
const readAudit = (app: FastifyInstance, tok: string) =>
  app.inject({ url: '/api/v1/platform/audit', headers: { authorization: `Bearer ${tok}` } });

const OIDC_LOOKALIKE = 'https://issuer.example#alice';

t.test('HS256 bearer tokens', async (t) => {
  const { app } = await build(t, { PLATFORM_ADMINS: `${PLATFORM_ADMIN},${OIDC_LOOKALIKE}` });
  const call = (tok: string) => readAudit(app, tok);

  t.test('a token with exp and the configured audience is accepted', async (t) => {
    t.equal((await call(await sign(PLATFORM_ADMIN))).statusCode, 200);
  });

  t.test('a token without exp is 401 and says which claim is missing', async (t) => {
    const res = await call(await sign(PLATFORM_ADMIN, { exp: null }));
    t.equal(res.statusCode, 401);
    t.match(res.json().detail, /"exp" claim is missing/);
  });

  t.test('a token for another audience is 401', async (t) => {
    const res = await call(await sign(PLATFORM_ADMIN, { aud: 'someone-else' }));
    t.equal(res.statusCode, 401);
    t.match(res.json().detail, /"aud" claim is not accepted/);
  });

  t.test('a token without an audience is 401', async (t) => {
    const res = await call(await sign(PLATFORM_ADMIN, { aud: null }));
    t.equal(res.statusCode, 401);
    t.match(res.json().detail, /"aud" claim is missing/);
  });

  t.test('a subject with "#" (the form of OIDC subjects) is 401, even one listed in PLATFORM_ADMINS', async (t) => {
    const res = await call(await sign(OIDC_LOOKALIKE));
    t.equal(res.statusCode, 401);
    t.match(res.json().detail, /"#"/);
  });

  t.test('a subject with a control character is 401: it would become a header line at the cluster', async (t) => {
    for (const subject of ['mallory\r\nImpersonate-Group: system:masters', 'mallory\u0000', 'mallory\u0085']) {
      const res = await call(await sign(subject));
      t.equal(res.statusCode, 401, JSON.stringify(subject));
      t.match(res.json().detail, /control characters/);
    }
  });
});

t.test('AUTH_JWT_AUDIENCE names the audience HS256 tokens must carry', async (t) => {
  const { app } = await build(t, { AUTH_JWT_AUDIENCE: 'gsp-api-staging' });
  const call = (tok: string) => readAudit(app, tok);
  t.equal((await call(await sign(PLATFORM_ADMIN, { aud: 'gsp-api-staging' }))).statusCode, 200);
  t.equal((await call(await sign(PLATFORM_ADMIN))).statusCode, 401, 'the default audience no longer suffices');
});
