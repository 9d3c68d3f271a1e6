import t from 'tap';
import { createHash } from 'node:crypto';
import { bearer, build, PLATFORM_ADMIN, seedTenant } from './helper.js';

t.test('tenants, members and clusters', async (t) => {
  const { app } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);

  t.test('a platform admin creates a tenant by adding its first member', async (t) => {
    const res = await app.inject({ method: 'PUT', url: '/api/v1/tenants/acme/members/ada', headers: admin, payload: { role: 'admin' } });
    t.equal(res.statusCode, 200);
    t.same(res.json(), { org: 'acme', subject: 'ada', role: 'admin' });
    const list = await app.inject({ url: '/api/v1/tenants/acme/members', headers: await bearer('ada') });
    t.same(list.json(), { members: [{ subject: 'ada', role: 'admin' }] });
  });

  t.test('a tenant admin manages members; an operator may not', async (t) => {
    const ada = await bearer('ada');
    t.equal((await app.inject({ method: 'PUT', url: '/api/v1/tenants/acme/members/otto', headers: ada, payload: { role: 'operator' } })).statusCode, 200);
    t.equal((await app.inject({ method: 'PUT', url: '/api/v1/tenants/acme/members/vic', headers: ada, payload: { role: 'viewer' } })).statusCode, 200);
    t.equal((await app.inject({ method: 'PUT', url: '/api/v1/tenants/acme/members/eve', headers: await bearer('otto'), payload: { role: 'admin' } })).statusCode, 403);
    t.equal((await app.inject({ method: 'PUT', url: '/api/v1/tenants/acme/members/eve', headers: ada, payload: { role: 'owner' } })).statusCode, 400);
    t.equal((await app.inject({ method: 'DELETE', url: '/api/v1/tenants/acme/members/vic', headers: ada })).statusCode, 204);
    t.equal((await app.inject({ method: 'DELETE', url: '/api/v1/tenants/acme/members/vic', headers: ada })).statusCode, 404);
    const members = (await app.inject({ url: '/api/v1/tenants/acme/members', headers: ada })).json().members;
    t.same(members, [
      { subject: 'ada', role: 'admin' },
      { subject: 'otto', role: 'operator' },
    ]);
  });

  t.test('a tenant admin cannot create another tenant', async (t) => {
    const res = await app.inject({ method: 'PUT', url: '/api/v1/tenants/other/members/ada', headers: await bearer('ada'), payload: { role: 'admin' } });
    t.equal(res.statusCode, 403);
  });

  t.test('tenant names must be DNS labels', async (t) => {
    const res = await app.inject({ method: 'PUT', url: '/api/v1/tenants/Bad_Name/members/ada', headers: admin, payload: { role: 'admin' } });
    t.equal(res.statusCode, 400);
  });

  t.test('an operator registers a cluster and sees its agent token once, stored only as a hash', async (t) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/tenants/acme/clusters', headers: await bearer('otto'), payload: { name: 'eu-west' } });
    t.equal(res.statusCode, 201);
    const body = res.json();
    t.match(body, { id: String, name: 'eu-west', org: 'acme', agentToken: /^gspat_[A-Za-z0-9_-]{43}$/ });
    const { rows } = await app.pg.query('SELECT agent_token_hash FROM clusters WHERE id = $1', [body.id]);
    t.equal(rows[0].agent_token_hash, createHash('sha256').update(body.agentToken).digest('hex'));
    const listed = (await app.inject({ url: '/api/v1/tenants/acme/clusters', headers: await bearer('ada') })).json().clusters;
    t.equal(listed.length, 1);
    t.notOk('agentToken' in listed[0], 'lists never show the token');
    const again = await app.inject({ method: 'POST', url: '/api/v1/tenants/acme/clusters', headers: await bearer('otto'), payload: { name: 'eu-west' } });
    t.equal(again.statusCode, 409);
  });

  t.test('a viewer lists clusters but cannot register or delete one', async (t) => {
    await seedTenant(app, 'acme', { vic: 'viewer' });
    const vic = await bearer('vic');
    const list = await app.inject({ url: '/api/v1/tenants/acme/clusters', headers: vic });
    t.equal(list.statusCode, 200);
    const id = list.json().clusters[0].id;
    t.equal((await app.inject({ method: 'POST', url: '/api/v1/tenants/acme/clusters', headers: vic, payload: { name: 'x' } })).statusCode, 403);
    t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${id}`, headers: vic })).statusCode, 403);
  });

  t.test('deleting a cluster removes its flag overrides and is audited', async (t) => {
    const otto = await bearer('otto');
    const id = (await app.inject({ url: '/api/v1/tenants/acme/clusters', headers: otto })).json().clusters[0].id;
    await app.inject({ method: 'PUT', url: `/api/v1/tenants/acme/clusters/${id}/feature-flags/cli_access.enabled`, headers: otto, payload: { value: false } });
    t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${id}`, headers: otto })).statusCode, 204);
    t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${id}`, headers: otto })).statusCode, 404);
    t.equal((await app.pg.query('SELECT count(*)::int AS n FROM feature_flags')).rows[0].n, 0);
    const actions = (await app.inject({ url: '/api/v1/platform/audit?limit=3', headers: admin })).json().items.map((i: { action: string }) => i.action);
    t.equal(actions[0], 'clusters.deleted');
  });
});
