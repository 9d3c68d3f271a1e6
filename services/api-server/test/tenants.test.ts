import t from 'tap';
import { createHash } from 'node:crypto';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant, putMember } from './helper.js';

t.test('tenants, members and clusters', async (t) => {
  const { app } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);

  t.test('a platform admin creates a tenant by adding its first member', async (t) => {
    const res = await putMember(app, 'acme', 'ada', 'admin', admin);
    t.equal(res.statusCode, 200);
    t.same(res.json(), { org: 'acme', subject: 'ada', role: 'admin' });
    const list = await app.inject({ url: '/api/v1/tenants/acme/members', headers: await bearer('ada') });
    t.same(list.json(), { members: [{ subject: 'ada', role: 'admin' }], issuer: null });
  });

  t.test('a tenant admin manages members; an operator may not', async (t) => {
    const ada = await bearer('ada');
    t.equal((await putMember(app, 'acme', 'otto', 'operator', ada)).statusCode, 200);
    t.equal((await putMember(app, 'acme', 'vic', 'viewer', ada)).statusCode, 200);
    t.equal((await putMember(app, 'acme', 'eve', 'admin', await bearer('otto'))).statusCode, 403);
    t.equal((await putMember(app, 'acme', 'eve', 'owner', ada)).statusCode, 400);
    t.equal(
      (await app.inject({ method: 'DELETE', url: '/api/v1/tenants/acme/members/vic', headers: ada })).statusCode,
      204,
    );
    t.equal(
      (await app.inject({ method: 'DELETE', url: '/api/v1/tenants/acme/members/vic', headers: ada })).statusCode,
      404,
    );
    const members = (await app.inject({ url: '/api/v1/tenants/acme/members', headers: ada })).json().members;
    t.same(members, [
      { subject: 'ada', role: 'admin' },
      { subject: 'otto', role: 'operator' },
    ]);
  });

  t.test('a tenant admin cannot create another tenant', async (t) => {
    const res = await putMember(app, 'other', 'ada', 'admin', await bearer('ada'));
    t.equal(res.statusCode, 403);
  });

  t.test('tenant names must be DNS labels', async (t) => {
    const res = await putMember(app, 'Bad_Name', 'ada', 'admin', admin);
    t.equal(res.statusCode, 400);
  });

  t.test('an operator registers a cluster and sees its agent token once, stored only as a hash', async (t) => {
    const otto = await bearer('otto');
    const register = () =>
      app.inject({ method: 'POST', url: '/api/v1/tenants/acme/clusters', headers: otto, payload: { name: 'eu-west' } });
    const res = await register();
    t.equal(res.statusCode, 201);
    const body = res.json();
    t.match(body, { id: String, name: 'eu-west', org: 'acme', agentToken: /^gspat_[A-Za-z0-9_-]{43}$/ });
    const { rows } = await app.pg.query('SELECT agent_token_hash FROM clusters WHERE id = $1', [body.id]);
    t.equal(rows[0].agent_token_hash, createHash('sha256').update(body.agentToken).digest('hex'));
    const listed = (await app.inject({ url: '/api/v1/tenants/acme/clusters', headers: await bearer('ada') })).json()
      .clusters;
    t.equal(listed.length, 1);
    t.notOk('agentToken' in listed[0], 'lists never show the token');
    t.equal((await register()).statusCode, 409, 'a second cluster of that name is refused');
  });

  t.test('a viewer lists clusters but cannot register or delete one', async (t) => {
    await seedTenant(app, 'acme', { vic: 'viewer' });
    const vic = await bearer('vic');
    const list = await app.inject({ url: '/api/v1/tenants/acme/clusters', headers: vic });
    t.equal(list.statusCode, 200);
    const id = list.json().clusters[0].id;
    t.equal(
      (await app.inject({ method: 'POST', url: '/api/v1/tenants/acme/clusters', headers: vic, payload: { name: 'x' } }))
        .statusCode,
      403,
    );
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${id}`, headers: vic })).statusCode,
      403,
    );
  });

  t.test("a viewer's kubeconfig refusal says in words what they lack and who can change it", async (t) => {
    const vic = await bearer('vic');
    const id = (await app.inject({ url: '/api/v1/tenants/acme/clusters', headers: vic })).json().clusters[0].id;
    const res = await app.inject({ url: `/api/v1/tenants/acme/clusters/${id}/kubeconfig`, headers: vic });
    t.equal(res.statusCode, 403);
    t.equal(
      res.json().detail,
      'you are a viewer in tenant acme, and only its admins and operators may download a kubeconfig, register or ' +
        'delete a cluster, or switch its CLI access: a tenant admin can change your role',
    );
    const stranger = await app.inject({ url: `/api/v1/tenants/acme/clusters`, headers: await bearer('nobody') });
    t.equal(
      stranger.json().detail,
      'you are not a member of tenant acme: a tenant admin or a platform admin can add you',
      'a non-member is told they are not one',
    );
    t.notMatch(res.body + stranger.body, /clusters\.register|tenant\.read/, 'no permission names');
  });

  t.test('deleting a cluster removes its flag overrides and is audited', async (t) => {
    const otto = await bearer('otto');
    const id = (await app.inject({ url: '/api/v1/tenants/acme/clusters', headers: otto })).json().clusters[0].id;
    await app.inject({
      method: 'PUT',
      url: `/api/v1/tenants/acme/clusters/${id}/feature-flags/cli_access.enabled`,
      headers: otto,
      payload: { value: false },
    });
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${id}`, headers: otto })).statusCode,
      204,
    );
    t.equal(
      (await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${id}`, headers: otto })).statusCode,
      404,
    );
    t.equal((await app.pg.query('SELECT count(*)::int AS n FROM feature_flags')).rows[0].n, 0);
    const actions = (await app.inject({ url: '/api/v1/platform/audit?limit=3', headers: admin }))
      .json()
      .items.map((i: { action: string }) => i.action);
    t.equal(actions[0], 'clusters.deleted');
  });
});

t.test('a tenant keeps one admin', async (t) => {
  const { app } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);
  await seedTenant(app, 'acme', { ada: 'admin', otto: 'operator' });
  const ada = await bearer('ada');
  const member = (subject: string) => `/api/v1/tenants/acme/members/${subject}`;

  t.test('removing the last admin is 409 and says why; nothing changes', async (t) => {
    for (const headers of [ada, admin]) {
      const res = await app.inject({ method: 'DELETE', url: member('ada'), headers });
      t.equal(res.statusCode, 409);
      t.match(res.headers['content-type'], /^application\/problem\+json/);
      t.equal(
        res.json().detail,
        'ada is the last admin of tenant acme, and a tenant must keep one admin: make another member admin first',
      );
    }
    const members = (await app.inject({ url: '/api/v1/tenants/acme/members', headers: ada })).json().members;
    t.same(members, [
      { subject: 'ada', role: 'admin' },
      { subject: 'otto', role: 'operator' },
    ]);
  });

  t.test('downgrading the last admin is 409 too', async (t) => {
    for (const role of ['operator', 'viewer']) {
      const res = await app.inject({ method: 'PUT', url: member('ada'), headers: ada, payload: { role } });
      t.equal(res.statusCode, 409, role);
      t.match(res.json().detail, /last admin of tenant acme/);
    }
  });

  t.test('with a second admin, either may step down, but not both', async (t) => {
    t.equal(
      (await app.inject({ method: 'PUT', url: member('otto'), headers: ada, payload: { role: 'admin' } })).statusCode,
      200,
    );
    t.equal(
      (await app.inject({ method: 'PUT', url: member('ada'), headers: ada, payload: { role: 'viewer' } })).statusCode,
      200,
    );
    t.equal(
      (await app.inject({ method: 'DELETE', url: member('otto'), headers: await bearer('otto') })).statusCode,
      409,
    );
  });

  t.test('two admins removing each other at once leave one admin', async (t) => {
    await seedTenant(app, 'race', { a1: 'admin', a2: 'admin' });
    const [one, two] = await Promise.all([
      app.inject({ method: 'DELETE', url: '/api/v1/tenants/race/members/a2', headers: await bearer('a1') }),
      app.inject({ method: 'DELETE', url: '/api/v1/tenants/race/members/a1', headers: await bearer('a2') }),
    ]);
    // The loser is refused either by the last-admin rule (409) or, when the winner committed before
    // its permission check, because it is no longer an admin at all (403).
    const [won, lost] = [one.statusCode, two.statusCode].sort();
    t.equal(won, 204, 'one removal succeeds');
    t.ok(lost === 409 || lost === 403, `the other is refused (${lost})`);
    const { rows } = await app.pg.query(
      "SELECT subject FROM role_bindings WHERE resource = 'tenant:race' AND role = 'admin'",
    );
    t.equal(rows.length, 1, 'exactly one admin remains');
  });
});

t.test("a tenant admin reads the tenant's audit rows, and only those", async (t) => {
  const { app } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);
  await seedTenant(app, 'acme', { ada: 'admin', otto: 'operator', vic: 'viewer' });
  await seedTenant(app, 'globex', { gus: 'admin' });
  const cluster = await registerCluster(app, 'acme', 'eu-west');
  const otto = await bearer('otto');
  const flagUrl = `/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/cli_access.enabled`;
  t.equal(
    (await app.inject({ method: 'PUT', url: flagUrl, headers: otto, payload: { value: false } })).statusCode,
    200,
  );
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: `/api/v1/tenants/acme/clusters/${cluster.id}/agent-token`,
        headers: otto,
      })
    ).statusCode,
    200,
  );
  const doomed = await registerCluster(app, 'acme', 'doomed');
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/tenants/acme/clusters/${doomed.id}`, headers: otto }))
      .statusCode,
    204,
  );
  await registerCluster(app, 'globex', 'elsewhere');
  t.equal(
    (
      await app.inject({
        method: 'PUT',
        url: '/api/v1/platform/feature-flags/cli_access.enabled',
        headers: admin,
        payload: { value: true },
      })
    ).statusCode,
    200,
  );

  const ada = await bearer('ada');
  const res = await app.inject({ url: '/api/v1/tenants/acme/audit', headers: ada });
  t.equal(res.statusCode, 200);
  const items: Array<{ id: string; action: string; resource: string }> = res.json().items;
  t.same(
    items.map((i) => i.action),
    [
      'clusters.deleted',
      'clusters.registered',
      'clusters.agent_token.rotated',
      'featureflags.set',
      'clusters.registered',
      'tenants.members.set',
      'tenants.members.set',
      'tenants.members.set',
    ],
    'members, clusters (also a deleted one) and cluster flags of acme, newest first; nothing of globex or the platform',
  );
  t.ok(items.every((i) => i.resource === 'tenant:acme' || i.resource.startsWith('cluster:')));
  t.equal(res.json().nextCursor, null);

  t.test('pages like the platform audit', async (t) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ id: string }>; nextCursor: string | null } = (
        await app.inject({
          url: `/api/v1/tenants/acme/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
          headers: ada,
        })
      ).json();
      t.ok(page.items.length <= 3);
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    t.same(
      seen,
      items.map((i) => i.id),
    );
  });

  t.test("operators, viewers and other tenants' admins may not read it; a platform admin may", async (t) => {
    for (const subject of ['otto', 'vic', 'gus']) {
      t.equal(
        (await app.inject({ url: '/api/v1/tenants/acme/audit', headers: await bearer(subject) })).statusCode,
        403,
        subject,
      );
    }
    t.equal((await app.inject({ url: '/api/v1/tenants/acme/audit', headers: admin })).statusCode, 200);
    t.equal(
      (await app.inject({ url: '/api/v1/tenants/globex/audit', headers: await bearer('gus') })).json().items.length,
      2,
    );
  });
});

t.test("a platform admin lists every tenant, and reads each one's clusters and members", async (t) => {
  const { app } = await build(t);
  const admin = await bearer(PLATFORM_ADMIN);
  await seedTenant(app, 'acme', { ada: 'admin', vic: 'viewer' });
  await seedTenant(app, 'globex', { gus: 'admin' });
  await registerCluster(app, 'acme', 'eu-1');
  await registerCluster(app, 'acme', 'us-1');

  const res = await app.inject({ url: '/api/v1/tenants', headers: admin });
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), {
    tenants: [
      { org: 'acme', clusters: 2, members: 2, createdAt: String },
      { org: 'globex', clusters: 0, members: 1, createdAt: String },
    ],
  });
  t.equal(res.json().tenants.length, 2);
  t.equal((await app.inject({ url: '/api/v1/tenants/globex/clusters', headers: admin })).statusCode, 200);
  t.equal((await app.inject({ url: '/api/v1/tenants/globex/members', headers: admin })).statusCode, 200);

  const refused = await app.inject({ url: '/api/v1/tenants', headers: await bearer('ada') });
  t.equal(refused.statusCode, 403, 'a tenant admin may not list other tenants');
  t.equal(refused.json().detail, 'only platform admins may do this');

  const doc = (await app.inject({ url: '/openapi.json' })).json();
  t.match(doc.paths['/api/v1/tenants'].get, { 'x-permission': 'platform.admin', tags: ['tenants'] }, 'documented');
});
