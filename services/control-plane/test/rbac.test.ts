import t from 'tap';
import type { Test } from 'tap';
import type { KubeLite } from '@gsp/kube-lite';
import { CoreV1Api } from '@kubernetes/client-node';
import { authorize, loadRoles } from '../src/rbac/roles.js';
import type { Verb } from '../src/rbac/roles.js';
import { DELETING_SHUTDOWN } from '../src/contract.js';
import { ROUTES } from '../src/rbac/table.js';
import type { RouteSpec } from '../src/rbac/table.js';
import {
  BASIC_ADMIN,
  GAME_PROFILE,
  buildWithProfiles,
  build,
  createBareGameServer,
  createKey,
  kubectl,
  readyServer,
  rolesFile,
  startKube,
  until,
} from './helper.js';

const CUSTOM = `roles:
  games-ops:
    permissions:
      - resource: "*"
        verbs: ["*"]
        namespaces: [games]
  auditor:
    inherits: viewer
    permissions:
      - resource: apikeys
        verbs: [list]
`;
const roles = loadRoles(CUSTOM);
const as = (role: string) => ({ role: roles.get(role) });

/**
 * Asserts what `authorize` decides for `role` on each line, `verb resource` (cluster-wide) or
 * `verb resource in namespace`.
 */
function decides(t: Test, role: string, expected: { allows?: string[]; denies?: string[] }): void {
  const allowed = (line: string) => {
    const [verb = '', resource = '', , namespace] = line.split(' ');
    return authorize(as(role), { resource, verb: verb as Verb }, namespace);
  };
  for (const line of expected.allows ?? []) t.ok(allowed(line), `${role} may ${line}`);
  for (const line of expected.denies ?? []) t.notOk(allowed(line), `${role} may not ${line}`);
}

/** kube-lite with the namespaces games and other, each holding one game server (gs-games, gs-other). */
async function twoNamespaces(t: Test): Promise<KubeLite> {
  const kube = await startKube(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  for (const namespace of ['games', 'other']) {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await createBareGameServer(kube, namespace, `gs-${namespace}`);
  }
  return kube;
}

t.test('viewers may read every game-server resource but change nothing', async (t) => {
  decides(t, 'viewer', {
    allows: ['list gameservers', 'get fleets in games'],
    denies: ['execute gameservers in games', 'list apikeys'],
  });
});

t.test('operators add actions, snapshots and the console; admins add create, delete and API keys', async (t) => {
  decides(t, 'operator', {
    allows: ['execute gameservers in games', 'create snapshots in games', 'execute console in games'],
    denies: ['delete gameservers in games'],
  });
  decides(t, 'admin', { allows: ['delete gameservers in games', 'create apikeys'] });
});

t.test('a namespaced permission applies only in its namespaces and never cluster-wide', async (t) => {
  decides(t, 'games-ops', {
    allows: ['delete gameservers in games'],
    denies: ['delete gameservers in other', 'list gameservers'],
  });
});

t.test('a caller with no role may do nothing', async (t) => {
  t.notOk(authorize({ role: undefined }, { resource: 'gameservers', verb: 'list' }, 'games'));
});

t.test('custom roles inherit, and role coverage decides which keys a caller may hand out', async (t) => {
  t.ok(authorize(as('auditor'), { resource: 'apikeys', verb: 'list' }));
  t.ok(authorize(as('auditor'), { resource: 'fleets', verb: 'list' }));
  t.ok(roles.covers('admin', 'auditor'));
  t.notOk(roles.covers('operator', 'auditor'));
  t.notOk(roles.covers('games-ops', 'viewer'));
  t.ok(roles.covers('admin', 'games-ops'), 'admin holds everything everywhere');
  t.equal(roles.highest(['viewer', 'admin', 'operator']), 'admin');
});

t.test('every route in the table answers 403 below its minimum role and never at or above it', async (t) => {
  const kube = await twoNamespaces(t);
  const { app } = await build(t, kube, { RBAC_ROLES_FILE: rolesFile(CUSTOM) });
  const keys: Record<string, string> = {};
  for (const role of ['viewer', 'operator', 'admin', 'games-ops'])
    keys[role] = await createKey(app, `matrix-${role}`, role);

  const rank = { viewer: 0, operator: 1, admin: 2 };
  let counter = 0;
  const payloads: Partial<Record<string, () => object>> = {
    createApiKey: () => ({ name: `m-${++counter}`, role: 'viewer' }),
    createGameServer: () => ({ profile: 'arena', name: `made-${++counter}` }),
    putProfile: () => ({ image: 'example/game:1.0', ports: [{ name: 'game', containerPort: 7777 }] }),
    scaleFleet: () => ({ replicas: 1 }),
  };
  const call = async (id: string, spec: RouteSpec, role: string, namespace: string) => {
    const url = spec.url
      .replace(':namespace', namespace)
      .replace('/apikeys/:name', '/apikeys/nothing')
      .replace('/profiles/:name', '/profiles/arena')
      .replace(':name', `gs-${namespace}`)
      .replace(':action', 'restart');
    const payload = payloads[id]?.();
    // The live feed never ends by itself: its status is all this needs.
    const feed = id === 'watchGameServers';
    const res = await app.inject({
      method: spec.method,
      url,
      headers: { 'x-api-key': keys[role] as string },
      ...(payload ? { payload } : {}),
      ...(feed ? { payloadAsStream: true } : {}),
    });
    if (feed) res.stream().destroy();
    return res.statusCode;
  };
  for (const [id, spec] of Object.entries(ROUTES) as [string, RouteSpec][]) {
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const status = await call(id, spec, role, 'games');
      if (rank[role] < rank[spec.minimumRole]) t.equal(status, 403, `${id} as ${role}`);
      else t.not(status, 403, `${id} as ${role}`);
    }
    // The namespaced role holds everything in "games" and nothing elsewhere.
    const inGames = await call(id, spec, 'games-ops', 'games');
    if (spec.scope === 'cluster') t.equal(inGames, 403, `${id} as games-ops (cluster-wide)`);
    else t.not(inGames, 403, `${id} as games-ops in games`);
    if (spec.scope === 'namespace')
      t.equal(await call(id, spec, 'games-ops', 'other'), 403, `${id} as games-ops in other`);
  }
});

t.test(
  'a shutdown that deletes more than a match, its players or its data, takes the permission to delete',
  async (t) => {
    const { app, kube } = await buildWithProfiles(
      t,
      { arena: GAME_PROFILE, world: { ...GAME_PROFILE, storage: { size: '1Gi', mountPath: '/data' } } },
      { env: { RBAC_ROLES_FILE: rolesFile(CUSTOM) } },
    );
    const rank = { viewer: 0, operator: 1, admin: 2 };
    const roleNames = ['viewer', 'operator', 'admin', 'games-ops'] as const;
    const keys: Record<string, string> = {};
    for (const role of roleNames) keys[role] = await createKey(app, `shutdown-${role}`, role);
    const shutdown = (name: string, role: string, args?: string[]) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/gameservers/games/${name}/actions/shutdown`,
        headers: { 'x-api-key': keys[role] as string },
        ...(args ? { payload: { args } } : {}),
      });
    for (const role of roleNames) {
      const mayExecute = role !== 'viewer';
      // games-ops holds every verb in games; the built-in roles as the table says.
      const mayDelete = role === 'games-ops' || rank[role] >= rank[DELETING_SHUTDOWN.minimumRole];

      await readyServer(app, `match-${role}`);
      const match = await shutdown(`match-${role}`, role);
      t.equal(match.statusCode, mayExecute ? 200 : 403, `${role}: a match server, neither Allocated nor holding data`);

      await readyServer(app, `full-${role}`);
      const allocate = await app.inject({
        method: 'POST',
        url: `/api/v1/gameservers/games/full-${role}/actions/allocate`,
        headers: BASIC_ADMIN,
      });
      t.equal(allocate.statusCode, 200, allocate.body);
      const unforced = await shutdown(`full-${role}`, role);
      t.equal(unforced.statusCode, mayDelete ? 409 : 403, `${role}: an Allocated server without force`);
      if (mayDelete) t.match(unforced.json(), { detail: /is Allocated: players are on it.*\["force"\]/ });
      else if (mayExecute) t.match(unforced.json(), { detail: /needs the permission to delete game servers/ });
      const forced = await shutdown(`full-${role}`, role, ['force']);
      t.equal(forced.statusCode, mayDelete ? 200 : 403, `${role}: an Allocated server with force`);

      await readyServer(app, `world-${role}`, 'world');
      const world = await shutdown(`world-${role}`, role);
      t.equal(world.statusCode, mayDelete ? 200 : 403, `${role}: a server with a data claim`);
      if (mayExecute && !mayDelete) {
        t.match(world.json(), { detail: /its data claim world-operator-data goes with it/ });
        const claim = await kubectl(kube, ['get', 'pvc', `world-${role}-data`, '-n', 'games', '-o', 'name']);
        t.equal(claim.code, 0, 'the data claim is still there');
        const state = (
          await app.inject({ url: `/api/v1/gameservers/games/world-${role}`, headers: BASIC_ADMIN })
        ).json();
        t.match(state, { state: 'Ready' }, 'and so is the server');
      }
    }
  },
);

t.test('a namespaced role sees only its namespaces in cluster-wide lists', async (t) => {
  const kube = await twoNamespaces(t);
  const { app } = await build(t, kube, { RBAC_ROLES_FILE: rolesFile(CUSTOM) });
  const key = await createKey(app, 'filtered', 'games-ops');
  const admin = await createKey(app, 'filtered-admin', 'admin');
  const names = async (k: string) =>
    ((await app.inject({ url: '/api/v1/gameservers', headers: { 'x-api-key': k } })).json() as { name: string }[])
      .map((i) => i.name)
      .sort();
  await until('both cached', async () => (await names(admin)).length === 2);
  t.same(await names(key), ['gs-games']);
  t.equal(
    (await app.inject({ url: '/api/v1/gameservers?namespace=other', headers: { 'x-api-key': key } })).statusCode,
    404,
    'a namespace it may not list is not shown',
  );
  t.same(await names(admin), ['gs-games', 'gs-other']);
});

const KEY_MANAGER = `roles:
  key-manager:
    inherits: viewer
    permissions:
      - resource: apikeys
        verbs: [list, create, delete]
`;

t.test('a role that may revoke keys cannot revoke a key of a role it does not cover', async (t) => {
  const kube = await startKube(t);
  const { app } = await build(t, kube, { RBAC_ROLES_FILE: rolesFile(KEY_MANAGER) });
  const manager = await createKey(app, 'manager', 'key-manager');
  const admin = await createKey(app, 'above', 'admin');
  await createKey(app, 'beside', 'operator');
  await createKey(app, 'below', 'viewer');
  const revoke = (name: string, key: string) =>
    app.inject({ method: 'DELETE', url: `/api/v1/apikeys/${name}`, headers: { 'x-api-key': key } });

  const upward = await revoke('above', manager);
  t.equal(upward.statusCode, 403);
  t.match(upward.headers['content-type'], /application\/problem\+json/);
  const detail = 'role key-manager may not revoke API key above with role admin: only keys of roles it covers';
  t.match(upward.json(), { detail });
  const adminStill = await app.inject({ url: '/api/v1/apikeys', headers: { 'x-api-key': admin } });
  t.equal(adminStill.statusCode, 200, 'the admin key still works');
  t.equal((await revoke('beside', manager)).statusCode, 403, 'nor sideways');
  t.equal((await revoke('below', manager)).statusCode, 204, 'a viewer key it may');
  t.equal((await revoke('above', admin)).statusCode, 204, 'an admin may');
});
