import t from 'tap';
import type { Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import {
  bearer,
  build,
  JWT_AUDIENCE,
  PLATFORM_ADMIN,
  registerCluster,
  seedTenant,
  token,
  putMember,
} from './helper.js';

const FLAG = 'cli_access.enabled';
const platformUrl = `/api/v1/platform/feature-flags/${FLAG}`;

function isProblem(t: Test, res: LightMyRequestResponse, status: number, detail?: RegExp) {
  t.equal(res.statusCode, status, `status ${status}`);
  t.match(res.headers['content-type'], /^application\/problem\+json/, 'problem+json content type');
  const body = res.json();
  t.match(body, { type: String, title: String, status, detail: String });
  if (detail) t.match(body.detail, detail);
  t.notMatch(res.body, /\n\s+at |node_modules|\.ts:\d+/, 'no stack trace');
}

t.test('errors', async (t) => {
  const { app } = await build(t);
  await seedTenant(app, 'acme', { ada: 'admin', otto: 'operator', vera: 'viewer' });
  await seedTenant(app, 'globex', { gus: 'admin' });
  const cluster = await registerCluster(app, 'acme', 'prod');
  const clusterFlagUrl = `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/${FLAG}`;
  const admin = await bearer(PLATFORM_ADMIN);

  t.test('no token is 401 with a Bearer challenge', async (t) => {
    const res = await app.inject({ url: '/api/v1/platform/feature-flags' });
    isProblem(t, res, 401);
    t.equal(res.headers['www-authenticate'], 'Bearer realm="gsp-api"');
  });

  t.test('a token signed with another secret is 401 invalid_token', async (t) => {
    const { SignJWT } = await import('jose');
    // Valid in every claim, so only the signature is wrong.
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(PLATFORM_ADMIN)
      .setAudience(JWT_AUDIENCE)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-that-is-32-bytes-long!!'));
    const res = await app.inject({
      method: 'PUT',
      url: platformUrl,
      headers: { authorization: `Bearer ${forged}` },
      payload: { value: false },
    });
    isProblem(t, res, 401);
    t.match(res.headers['www-authenticate'], /error="invalid_token"/);
  });

  t.test('an expired token is 401', async (t) => {
    const expired = await token(PLATFORM_ADMIN, {}, '-5m');
    isProblem(
      t,
      await app.inject({ url: '/api/v1/platform/feature-flags', headers: { authorization: `Bearer ${expired}` } }),
      401,
      /expired/,
    );
  });

  t.test('garbage and alg "none" tokens are 401', async (t) => {
    isProblem(
      t,
      await app.inject({ url: '/api/v1/platform/feature-flags', headers: { authorization: 'Bearer not.a.jwt' } }),
      401,
    );
    const none =
      `${Buffer.from('{"alg":"none"}').toString('base64url')}.` +
      `${Buffer.from(`{"sub":"${PLATFORM_ADMIN}"}`).toString('base64url')}.`;
    isProblem(
      t,
      await app.inject({ url: '/api/v1/platform/feature-flags', headers: { authorization: `Bearer ${none}` } }),
      401,
    );
    isProblem(
      t,
      await app.inject({ url: '/api/v1/platform/feature-flags', headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
      401,
    );
  });

  t.test('a tenant operator may not write the platform flag', async (t) => {
    isProblem(
      t,
      await app.inject({ method: 'PUT', url: platformUrl, headers: await bearer('otto'), payload: { value: false } }),
      403,
    );
    isProblem(t, await app.inject({ method: 'DELETE', url: platformUrl, headers: await bearer('ada') }), 403);
  });

  t.test('a viewer may read but not write a cluster flag', async (t) => {
    const headers = await bearer('vera');
    t.equal(
      (await app.inject({ url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags`, headers })).statusCode,
      200,
    );
    isProblem(t, await app.inject({ method: 'PUT', url: clusterFlagUrl, headers, payload: { value: false } }), 403);
  });

  t.test('a member of another tenant gets 403, even for routes that exist', async (t) => {
    const headers = await bearer('gus');
    isProblem(t, await app.inject({ method: 'PUT', url: clusterFlagUrl, headers, payload: { value: false } }), 403);
    isProblem(t, await app.inject({ url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags`, headers }), 403);
    isProblem(t, await app.inject({ url: '/api/v1/tenants/acme/clusters', headers }), 403);
    isProblem(t, await app.inject({ url: '/api/v1/tenants/acme/members', headers }), 403);
  });

  t.test('authorization is decided before the body is looked at', async (t) => {
    isProblem(
      t,
      await app.inject({ method: 'PUT', url: platformUrl, headers: await bearer('otto'), payload: { value: 'false' } }),
      403,
    );
  });

  t.test('bodies of the wrong shape or type are 400', async (t) => {
    for (const payload of [
      { value: 'false' },
      {},
      { value: false, extra: 1 },
      { value: null },
      { value: 0 },
      [false],
    ]) {
      const res = await app.inject({ method: 'PUT', url: platformUrl, headers: admin, payload });
      isProblem(t, res, 400);
    }
    isProblem(
      t,
      await app.inject({
        method: 'PUT',
        url: platformUrl,
        headers: { ...admin, 'content-type': 'application/json' },
        payload: '{"value": fals',
      }),
      400,
    );
    isProblem(t, await app.inject({ method: 'PUT', url: platformUrl, headers: admin }), 400);
    const untouched = await app.inject({ url: '/api/v1/platform/feature-flags', headers: admin });
    t.equal(untouched.json().flags[0].source, 'default', 'no rejected write was stored');
  });

  t.test('an unknown role names the roles there are, once, with a pointer to the field', async (t) => {
    const res = await putMember(app, 'acme', 'eve', 'owner', admin);
    isProblem(t, res, 400);
    t.equal(res.json().detail, 'role must be one of admin, operator, viewer');
    t.same(res.json().errors, [
      { in: 'body', pointer: '#/role', detail: 'role must be one of admin, operator, viewer' },
    ]);
  });

  t.test('an extra field is named as unknown, and a wrong type says which type', async (t) => {
    const extra = await app.inject({
      method: 'PUT',
      url: platformUrl,
      headers: admin,
      payload: { value: true, extra: 1 },
    });
    isProblem(t, extra, 400);
    t.equal(extra.json().detail, 'unknown field "extra"');
    t.same(extra.json().errors, [{ in: 'body', pointer: '#/extra', detail: 'unknown field "extra"' }]);
    const wrong = await app.inject({ method: 'PUT', url: clusterFlagUrl, headers: admin, payload: { value: 'false' } });
    isProblem(t, wrong, 400, /^value must be a boolean$/);
    isProblem(
      t,
      await app.inject({ method: 'PUT', url: platformUrl, headers: admin, payload: {} }),
      400,
      /^value is required$/,
    );
  });

  t.test('a bad path parameter says what is allowed instead of echoing the pattern', async (t) => {
    const label = await putMember(app, 'Bad_Name', 'ada', 'admin', admin);
    isProblem(t, label, 400, /^org must be a DNS label: 1 to 63 lower-case letters, digits or "-"/);
    t.same(
      label.json().errors.map((e: { in: string; pointer: string }) => [e.in, e.pointer]),
      [['path', '#/org']],
    );
    const control = await app.inject({ url: `/api/v1/tenants/acme/clusters/${cluster.id}%01`, headers: admin });
    isProblem(t, control, 400, /^id must not contain control characters$/);
    const nul = await app.inject({ url: '/api/v1/tenants/ac%00me/clusters', headers: admin });
    isProblem(t, nul, 400, /^org must not contain control characters$/);
    t.same(nul.json().errors, [{ in: 'path', pointer: '#/org', detail: 'org must not contain control characters' }]);
    isProblem(
      t,
      await app.inject({ url: '/api/v1/platform/audit?limit=0', headers: admin }),
      400,
      /^limit must be at least 1$/,
    );
    t.notMatch(label.body + control.body, /\^\[|\\u0000/, 'no regular expression in the answer');
  });

  t.test('a body that is not JSON is 415', async (t) => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      isProblem(
        t,
        await app.inject({
          method: 'PUT',
          url: platformUrl,
          headers: { ...admin, 'content-type': contentType },
          payload: 'value=false',
        }),
        415,
      );
    }
  });

  t.test('a body over 16 KiB is 413', async (t) => {
    const payload = JSON.stringify({ value: false, pad: 'x'.repeat(17 * 1024) });
    isProblem(
      t,
      await app.inject({
        method: 'PUT',
        url: platformUrl,
        headers: { ...admin, 'content-type': 'application/json' },
        payload,
      }),
      413,
    );
  });

  t.test('unknown flags, tenants, clusters and routes are 404', async (t) => {
    isProblem(
      t,
      await app.inject({
        method: 'PUT',
        url: '/api/v1/platform/feature-flags/no.such.flag',
        headers: admin,
        payload: { value: true },
      }),
      404,
      /unknown feature flag/,
    );
    isProblem(
      t,
      await app.inject({
        method: 'PUT',
        url: `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/nope`,
        headers: admin,
        payload: { value: true },
      }),
      404,
    );
    isProblem(
      t,
      await app.inject({ url: '/api/v1/tenants/nobody/clusters', headers: admin }),
      404,
      /tenant nobody not found/,
    );
    isProblem(
      t,
      await app.inject({
        method: 'PUT',
        url: `/api/v1/tenants/acme/clusters/00000000-0000-0000-0000-000000000000/feature-flags/${FLAG}`,
        headers: admin,
        payload: { value: true },
      }),
      404,
    );
    isProblem(
      t,
      await app.inject({ url: `/api/v1/tenants/globex/clusters/${cluster.id}/feature-flags`, headers: admin }),
      404,
      /not found in tenant globex/,
    );
    isProblem(t, await app.inject({ url: '/api/v1/nothing-here', headers: admin }), 404);
  });
});
