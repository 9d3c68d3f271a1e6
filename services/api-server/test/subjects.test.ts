import t from 'tap';
import { SUBJECT_MAX_LENGTH } from '@gsp/platform-contract';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant, token } from './helper.js';

const member = (org: string, subject: string) => `/api/v1/tenants/${org}/members/${encodeURIComponent(subject)}`;
/** An Entra ID subject as the API server names it: the issuer, then the user's id, 255 characters in all. */
const ENTRA = 'https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/';
const LONGEST = ENTRA + 'u'.repeat(SUBJECT_MAX_LENGTH - ENTRA.length);

t.test('who can be a member: the subject rule', async (t) => {
  const { app } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);
  await seedTenant(app, 'acme', { ada: 'admin' });

  t.test('a subject Kubernetes reserves (system:) is refused with 400 naming the rule', async (t) => {
    for (const subject of ['system:kube-controller-manager', 'system:serviceaccount:kube-system:default']) {
      const res = await app.inject({
        method: 'PUT',
        url: member('acme', subject),
        headers: admin,
        payload: { role: 'admin' },
      });
      t.equal(res.statusCode, 400, subject);
      t.match(res.json(), { status: 400, detail: /subject.*does not begin with "system:"/ }, subject);
    }
    const { rows } = await app.pg.query("SELECT subject FROM role_bindings WHERE subject LIKE 'system:%'");
    t.same(rows, [], 'no role binding stored');
  });

  t.test('a subject the proxy could never send as Impersonate-User is refused when written', async (t) => {
    for (const subject of ['ünïcode', 'user 名前', ' alice', 'alice ', 'x'.repeat(SUBJECT_MAX_LENGTH + 1)]) {
      const res = await app.inject({
        method: 'PUT',
        url: member('acme', subject),
        headers: admin,
        payload: { role: 'viewer' },
      });
      t.equal(res.statusCode, 400, JSON.stringify(subject));
      t.match(res.json(), { detail: /visible ASCII characters|at most 255 characters/ }, JSON.stringify(subject));
    }
  });

  t.test('a 255-character subject (an Entra ID issuer and user) can be added and removed', async (t) => {
    t.equal(LONGEST.length, 255);
    const put = await app.inject({
      method: 'PUT',
      url: member('acme', LONGEST),
      headers: admin,
      payload: { role: 'viewer' },
    });
    t.equal(put.statusCode, 200, put.body);
    t.equal(put.json().subject, LONGEST);
    const removed = await app.inject({ method: 'DELETE', url: member('acme', LONGEST), headers: admin });
    t.equal(removed.statusCode, 204, removed.body);
  });

  t.test('a member written before the rule can still be removed', async (t) => {
    await app.pg.query(
      "INSERT INTO role_bindings (subject, resource, role) VALUES ('system:legacy', 'tenant:acme', 'viewer')",
    );
    const res = await app.inject({ method: 'DELETE', url: member('acme', 'system:legacy'), headers: admin });
    t.equal(res.statusCode, 204, res.body);
  });
});

t.test('a token whose subject begins with system: is refused', async (t) => {
  const { app } = await build(t, { PLATFORM_ADMINS: `${PLATFORM_ADMIN},system:admin` });
  const res = await app.inject({ url: '/api/v1/platform/feature-flags', headers: await bearer('system:admin') });
  t.equal(res.statusCode, 401);
  t.match(res.json(), { detail: /begins with "system:"/ });
});

t.test('no kubeconfig is issued for a subject the proxy could never impersonate', async (t) => {
  const { app } = await build(t, { PLATFORM_ADMINS: `${PLATFORM_ADMIN},ädmin` });
  await seedTenant(app, 'acme', { ada: 'admin' });
  const { id } = await registerCluster(app, 'acme', 'eu-west');
  const url = `/api/v1/tenants/acme/clusters/${id}/kubeconfig`;
  const res = await app.inject({ url, headers: await bearer('ädmin') });
  t.equal(res.statusCode, 400);
  t.match(res.json(), { detail: /no kubeconfig is issued: a subject is 1 to 255 visible ASCII characters/ });
  t.equal(
    (await app.inject({ url, headers: await bearer(PLATFORM_ADMIN) })).statusCode,
    200,
    'an ASCII admin gets one',
  );
});

t.test('an expired token is refused once AUTH_CLOCK_TOLERANCE has passed, and accepted within it', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const asked = async (app: Awaited<ReturnType<typeof build>>['app'], expiredSecondsAgo: number) => {
    const expired = await token(PLATFORM_ADMIN, {}, now - expiredSecondsAgo);
    return app.inject({ url: '/api/v1/platform/feature-flags', headers: { authorization: `Bearer ${expired}` } });
  };
  const byDefault = (await build(t)).app;
  t.equal((await asked(byDefault, 2)).statusCode, 200, 'expired 2 s ago: within the default 5 s');
  const late = await asked(byDefault, 10);
  t.equal(late.statusCode, 401, 'expired 10 s ago: refused');
  t.match(late.json(), { detail: /expired/ });
  const strict = (await build(t, { AUTH_CLOCK_TOLERANCE: '0' })).app;
  t.equal((await asked(strict, 2)).statusCode, 401, 'expired 2 s ago with AUTH_CLOCK_TOLERANCE=0: refused');
});
