import t from 'tap';
import { bearer, build, PLATFORM_ADMIN, seedTenant } from './helper.js';

const { app } = await build(t);
await seedTenant(app, 'zeta', { alice: 'viewer' });
await seedTenant(app, 'acme', { alice: 'admin', bob: 'operator' });

const me = async (subject: string) => app.inject({ url: '/api/v1/me', headers: await bearer(subject) });

t.test('a member is told its subject and each of its tenants with its role, by org', async (t) => {
  const res = await me('alice');
  t.equal(res.statusCode, 200);
  t.same(res.json(), {
    subject: 'alice',
    platformAdmin: false,
    tenants: [
      { org: 'acme', role: 'admin' },
      { org: 'zeta', role: 'viewer' },
    ],
  });
});

t.test('a platform admin is told so', async (t) => {
  t.same((await me(PLATFORM_ADMIN)).json(), { subject: PLATFORM_ADMIN, platformAdmin: true, tenants: [] });
});

t.test('a caller without any role is told it has none, not refused', async (t) => {
  const res = await me('nobody');
  t.equal(res.statusCode, 200);
  t.same(res.json(), { subject: 'nobody', platformAdmin: false, tenants: [] });
});

t.test('a role change shows at once', async (t) => {
  const res = await app.inject({
    method: 'DELETE',
    url: '/api/v1/tenants/acme/members/bob',
    headers: await bearer('alice'),
  });
  t.equal(res.statusCode, 204);
  t.same((await me('bob')).json().tenants, []);
});

t.test('without a token it is 401 problem+json', async (t) => {
  const res = await app.inject({ url: '/api/v1/me' });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], 'application/problem+json');
});

t.test('the OpenAPI document describes the answer', async (t) => {
  const doc = (await app.inject({ url: '/openapi.json' })).json();
  const schema = doc.paths['/api/v1/me'].get.responses['200'].content['application/json'].schema;
  t.same(Object.keys(schema.properties).sort(), ['platformAdmin', 'subject', 'tenants']);
  t.ok(doc.paths['/api/v1/events'].get.responses['200'].content['text/event-stream'], 'the stream is documented');
});
