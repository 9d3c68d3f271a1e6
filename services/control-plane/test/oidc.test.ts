import t from 'tap';
import { loadRoles } from '../src/rbac/roles.js';
import { roleFromClaims } from '../src/auth/oidc.js';
import { build, startKube } from './helper.js';
import { CLIENT_ID, signingKey, startIssuer } from './oidc-issuer.js';

const kube = await startKube(t);
const k1 = await signingKey('k1', 'RS256');
const idp = await startIssuer(t);
idp.publish([k1]);
/** OIDC against the test issuer, roles read from `roleClaim` and mapped by `mapping`. */
const oidcEnv = (roleClaim: string, mapping: string) => ({
  AUTH_MODE: 'oidc',
  AUTH_OIDC_ISSUER_URL: idp.issuer,
  AUTH_OIDC_CLIENT_ID: CLIENT_ID,
  AUTH_OIDC_ROLE_CLAIM: roleClaim,
  AUTH_OIDC_ROLE_MAPPING: mapping,
});
const { app } = await build(t, kube, {
  ...oidcEnv('realm_access.roles', 'gs-viewers=viewer,gs-ops=operator,gs-admins=admin'),
  AUTH_OIDC_JWKS_COOLDOWN: '1ms',
});
const call = async (token: string, url = '/api/v1/gameservers') =>
  app.inject({ url, headers: { authorization: `Bearer ${token}` } });

t.test('discovery from the issuer finds its JWKS and a valid token is accepted', async (t) => {
  const res = await call(await idp.sign(k1, 'alice', { realm_access: { roles: ['gs-viewers'] } }));
  t.equal(res.statusCode, 200);
  t.ok(idp.jwksRequests() >= 1, 'the key set came from the provider');
});

t.test('a token for another audience is a 401', async (t) => {
  t.equal(
    (await call(await idp.sign(k1, 'alice', { realm_access: { roles: ['gs-admins'] } }, { aud: 'someone-else' })))
      .statusCode,
    401,
  );
});

t.test('an expired token is a 401 that says so', async (t) => {
  const res = await call(await idp.sign(k1, 'alice', { realm_access: { roles: ['gs-admins'] } }, { exp: '-5m' }));
  t.equal(res.statusCode, 401);
  t.match(res.json(), { detail: 'the token has expired' });
  t.match(res.headers['www-authenticate'], /Bearer .*error="invalid_token"/);
});

t.test('a token signed by an unknown key is a 401', async (t) => {
  const stranger = await signingKey('k1', 'RS256');
  t.equal(
    (await call(await idp.sign(stranger, 'mallory', { realm_access: { roles: ['gs-admins'] } }))).statusCode,
    401,
  );
});

t.test('a rotated signing key is picked up without restart', async (t) => {
  const k2 = await signingKey('k2', 'ES256');
  idp.publish([k2, k1]);
  const res = await call(await idp.sign(k2, 'bob', { realm_access: { roles: ['gs-ops'] } }));
  t.equal(res.statusCode, 200);
});

t.test('the highest mapped role wins and decides what the caller may do', async (t) => {
  const token = await idp.sign(k1, 'carol', {
    preferred_username: 'carol',
    realm_access: { roles: ['gs-viewers', 'gs-admins', 'unrelated'] },
  });
  t.equal((await call(token, '/api/v1/apikeys')).statusCode, 200);
  const viewer = await idp.sign(k1, 'dave', { realm_access: { roles: ['gs-viewers'] } });
  t.equal((await call(viewer, '/api/v1/apikeys')).statusCode, 403);
});

t.test('a valid token with no mapped role is authenticated but forbidden everywhere', async (t) => {
  const res = await call(await idp.sign(k1, 'erin', { realm_access: { roles: ['other'] } }));
  t.equal(res.statusCode, 403);
  t.match(res.json(), { detail: 'you are authenticated but have no role' });
});

const roles = loadRoles();
const mapping = new Map([
  ['gs-viewers', 'viewer'],
  ['gs-ops', 'operator'],
]);

t.test('the role claim may be a string, an array or a dotted path', async (t) => {
  t.equal(roleFromClaims({ role: 'gs-ops' }, { roleClaim: 'role', roleMapping: mapping }, roles), 'operator');
  t.equal(
    roleFromClaims({ groups: ['x', 'gs-viewers'] }, { roleClaim: 'groups', roleMapping: mapping }, roles),
    'viewer',
  );
  t.equal(
    roleFromClaims(
      { realm_access: { roles: ['gs-viewers', 'gs-ops'] } },
      { roleClaim: 'realm_access.roles', roleMapping: mapping },
      roles,
    ),
    'operator',
  );
  t.equal(
    roleFromClaims({ realm_access: {} }, { roleClaim: 'realm_access.roles', roleMapping: mapping }, roles),
    undefined,
  );
});

t.test('string and array role claims work end to end', async (t) => {
  const a = await build(t, kube, oidcEnv('group', 'gs-admins=admin'));
  const asString = await idp.sign(k1, 'frank', { group: 'gs-admins' });
  const asArray = await idp.sign(k1, 'grace', { group: ['gs-admins'] });
  t.equal(
    (await a.app.inject({ url: '/api/v1/apikeys', headers: { authorization: `Bearer ${asString}` } })).statusCode,
    200,
  );
  t.equal(
    (await a.app.inject({ url: '/api/v1/apikeys', headers: { authorization: `Bearer ${asArray}` } })).statusCode,
    200,
  );
});

t.test('the audited user is preferred_username, else email, else sub', async (t) => {
  const b = await build(t, kube, oidcEnv('group', 'v=viewer'));
  for (const claims of [{ preferred_username: 'hank', email: 'h@example.com' }, { email: 'i@example.com' }, {}]) {
    await b.app.inject({
      url: '/api/v1/gameservers',
      headers: { authorization: `Bearer ${await idp.sign(k1, 'sub-id', { group: 'v', ...claims })}` },
    });
  }
  t.same(
    b.audit.lines().map((l) => l.user),
    ['hank', 'i@example.com', 'sub-id'],
  );
});

t.test('an expired token is accepted only within AUTH_CLOCK_TOLERANCE (5 s unless set)', async (t) => {
  const admin = { realm_access: { roles: ['gs-admins'] } };
  t.equal((await call(await idp.sign(k1, 'alice', admin, { exp: '-2s' }))).statusCode, 200, '2 s late: within 5 s');
  t.equal((await call(await idp.sign(k1, 'alice', admin, { exp: '-10s' }))).statusCode, 401, '10 s late: refused');
  const strict = await build(t, kube, {
    ...oidcEnv('realm_access.roles', 'gs-admins=admin'),
    AUTH_CLOCK_TOLERANCE: '0s',
  });
  const late = await strict.app.inject({
    url: '/api/v1/gameservers',
    headers: { authorization: `Bearer ${await idp.sign(k1, 'alice', admin, { exp: '-2s' })}` },
  });
  t.equal(late.statusCode, 401, 'with no tolerance, 2 s late is refused');
  t.match(late.json(), { detail: 'the token has expired' });
});

t.test("a token whose subject is one of Kubernetes' own (system:) is refused", async (t) => {
  const res = await call(
    await idp.sign(k1, 'system:kube-controller-manager', { realm_access: { roles: ['gs-admins'] } }),
  );
  t.equal(res.statusCode, 401);
  t.match(res.json().detail, /system:/);
});
