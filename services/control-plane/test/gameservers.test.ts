import t from 'tap';
import type { Test as Tap } from 'tap';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { BASIC_ADMIN, buildWithProfiles, kubectl, postGameServer, until } from './helper.js';
import type { FastifyInstance } from 'fastify';

export const PROFILE = {
  description: 'a test game',
  image: 'example/game:1.0',
  ports: [{ name: 'game', containerPort: 7777, protocol: 'UDP' }],
  env: { MODE: 'coop' },
  players: { initialCapacity: 8 },
};

interface View {
  namespace: string;
  name: string;
  profile: string | null;
  state: string;
  address: string | null;
  ports: { name: string; port: number; protocol: string }[];
  labels: Record<string, string>;
  players: { count: number; capacity: number } | null;
  createdAt: string;
}

const setUp = (t: Tap) =>
  buildWithProfiles(t, { arena: PROFILE, persistent: { ...PROFILE, storage: { size: '1Gi', mountPath: '/data' } } });

const get = async (app: FastifyInstance, url: string) => app.inject({ url, headers: BASIC_ADMIN });
const ready = (app: FastifyInstance, ns: string, name: string) =>
  until(`${ns}/${name} Ready`, async () => {
    const res = await get(app, `/api/v1/gameservers/${ns}/${name}`);
    const view = res.statusCode === 200 ? (res.json() as View) : undefined;
    return view?.state === 'Ready' ? view : undefined;
  });

t.test(
  'an admin creates a game server from a profile; kubectl shows it with its labels, and it becomes Ready',
  async (t) => {
    const { app, kube } = await setUp(t);
    const res = await postGameServer(app, 'games', {
      profile: 'arena',
      name: 'arena-1',
      labels: { team: 'red' },
      env: { MODE: 'pvp' },
    });
    t.equal(res.statusCode, 201, res.body);
    t.equal(res.headers.location, '/api/v1/gameservers/games/arena-1');
    const created = res.json() as View;
    t.match(created, {
      namespace: 'games',
      name: 'arena-1',
      profile: 'arena',
      labels: { team: 'red', 'gsp.dev/profile': 'arena' },
    });

    const shown = await kubectl(kube, ['get', 'gameservers', 'arena-1', '-n', 'games', '-o', 'json']);
    t.equal(shown.code, 0, shown.stderr);
    const gs = JSON.parse(shown.stdout) as {
      metadata: { labels: Record<string, string> };
      spec: { template: { spec: { containers: { image: string; env: { name: string; value: string }[] }[] } } };
    };
    t.equal(gs.metadata.labels['gsp.dev/profile'], 'arena');
    t.equal(gs.metadata.labels['app.kubernetes.io/managed-by'], 'gsp-control-plane');
    t.equal(gs.spec.template.spec.containers[0]?.image, 'example/game:1.0');
    t.same(
      gs.spec.template.spec.containers[0]?.env,
      [{ name: 'MODE', value: 'pvp' }],
      'the request env wins over the profile env',
    );

    const view = await ready(app, 'games', 'arena-1');
    t.ok(view.address, 'a Ready server has an address');
    t.equal(view.ports.length, 1);
    t.match(view.ports[0], { name: 'game', protocol: 'UDP' });
    t.ok((view.ports[0]?.port ?? 0) > 0, 'the port players connect to');
    t.same(view.players, { count: 0, capacity: 8 });
    t.ok(!Number.isNaN(Date.parse(view.createdAt)));
    const table = await kubectl(kube, ['get', 'gs', '-n', 'games']);
    t.match(table.stdout, /arena-1\s+Ready/);
  },
);

t.test('a profile with storage gets a PersistentVolumeClaim owned by the game server, removed with it', async (t) => {
  const { app, kube } = await setUp(t);
  const res = await postGameServer(app, 'games', { profile: 'persistent' });
  t.equal(res.statusCode, 201, res.body);
  const { name } = res.json() as View;
  t.match(name, /^persistent-[a-z0-9]{5}$/, 'a generated name from the profile');
  const pvc = await kubectl(kube, ['get', 'pvc', `${name}-data`, '-n', 'games', '-o', 'json']);
  t.equal(pvc.code, 0, pvc.stderr);
  const claim = JSON.parse(pvc.stdout) as {
    metadata: { labels: Record<string, string>; ownerReferences: { kind: string; name: string }[] };
    spec: { resources: { requests: { storage: string } } };
  };
  t.equal(claim.metadata.labels['gsp.dev/profile'], 'persistent');
  t.match(claim.metadata.ownerReferences, [{ kind: 'GameServer', name }]);
  t.equal(claim.spec.resources.requests.storage, '1Gi');
  await ready(app, 'games', name);

  const deleted = await app.inject({
    method: 'DELETE',
    url: `/api/v1/gameservers/games/${name}`,
    headers: BASIC_ADMIN,
  });
  t.equal(deleted.statusCode, 204);
  await until(
    'the game server gone',
    async () => (await get(app, `/api/v1/gameservers/games/${name}`)).statusCode === 404,
  );
  await until(
    'its claim gone',
    async () => (await kubectl(kube, ['get', 'pvc', '-n', 'games', '-o', 'name'])).stdout.trim() === '',
  );
  t.equal((await kubectl(kube, ['get', 'gs', name, '-n', 'games'])).code, 1, 'kubectl no longer finds it');
});

t.test(
  'creating refuses an unknown profile (422), an unknown namespace (404), a taken name (409) and reserved labels (400)',
  async (t) => {
    const { app } = await setUp(t);
    const create = (ns: string, payload: object) =>
      app.inject({ method: 'POST', url: `/api/v1/gameservers/${ns}`, headers: BASIC_ADMIN, payload });
    const unknown = await create('games', { profile: 'nope' });
    t.equal(unknown.statusCode, 422);
    t.match(unknown.json(), { detail: /unknown profile nope/ });
    const noNamespace = await create('missing', { profile: 'arena' });
    t.equal(noNamespace.statusCode, 404);
    t.match(noNamespace.headers['content-type'], /application\/problem\+json/);
    t.match(noNamespace.json(), { detail: /missing/ });
    t.equal((await create('games', { profile: 'arena', name: 'taken' })).statusCode, 201);
    const taken = await create('games', { profile: 'arena', name: 'taken' });
    t.equal(taken.statusCode, 409);
    t.match(taken.json(), { detail: /taken/ });
    const reserved = await create('games', { profile: 'arena', labels: { 'gsp.dev/profile': 'other' } });
    t.equal(reserved.statusCode, 400);
    const badName = await create('games', { profile: 'arena', name: 'X Y' });
    t.equal(badName.statusCode, 400);
    t.match(
      badName.json(),
      { detail: /^name must be a DNS-1123 label: lower-case letters, digits and "-"/ },
      'the rule, not the pattern',
    );
    // The profile's rules for env, one schema: a NUL cannot reach a process's environment.
    const nul = await create('games', { profile: 'arena', name: 'nul', env: { MOTD: 'a\u0000b' } });
    t.equal(nul.statusCode, 400, nul.body);
    t.match(nul.json(), { detail: /env\.MOTD must not contain NUL characters/ });
    const badVar = await create('games', { profile: 'arena', name: 'badvar', env: { '1X': 'y' } });
    t.equal(badVar.statusCode, 400);
    const extra = await create('games', { profile: 'arena', image: 'evil' });
    t.equal(extra.statusCode, 400);
    t.match(extra.json(), { detail: /unknown field/ });
  },
);

t.test('lists filter by namespace, state and label selector, and page with a Link header', async (t) => {
  const { app, kube } = await setUp(t);
  await kube.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'other' } } });
  for (const [ns, name, team] of [
    ['games', 'a-1', 'red'],
    ['games', 'a-2', 'blue'],
    ['games', 'a-3', 'red'],
    ['other', 'b-1', 'red'],
  ] as const) {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/gameservers/${ns}`,
      headers: BASIC_ADMIN,
      payload: { profile: 'arena', name, labels: { team } },
    });
    t.equal(res.statusCode, 201, res.body);
  }
  const names = async (query: string) =>
    ((await get(app, `/api/v1/gameservers${query}`)).json() as View[]).map((v) => `${v.namespace}/${v.name}`);
  t.same(
    await names(''),
    ['games/a-1', 'games/a-2', 'games/a-3', 'other/b-1'],
    'a bare JSON array, sorted by namespace and name',
  );
  t.same(await names('?namespace=other'), ['other/b-1']);
  t.same(await names('?labelSelector=team%3Dred'), ['games/a-1', 'games/a-3', 'other/b-1']);
  t.same(await names('?labelSelector=team%20notin%20(red)'), ['games/a-2']);
  await until('all Ready', async () => (await names('?state=Ready')).length === 4);
  t.same(await names('?state=Allocated'), []);
  t.equal(
    (await get(app, '/api/v1/gameservers?labelSelector=team%3D%3D%3D')).statusCode,
    400,
    'a malformed selector is a 400',
  );

  const seen: string[] = [];
  let url: string | undefined = '/api/v1/gameservers?limit=3';
  let pages = 0;
  while (url !== undefined) {
    const res = await get(app, url);
    t.equal(res.statusCode, 200);
    seen.push(...(res.json() as View[]).map((v) => v.name));
    pages++;
    url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1];
  }
  t.equal(pages, 2);
  t.same(seen, ['a-1', 'a-2', 'a-3', 'b-1'], 'every server once, in order, over two pages');
  t.equal((await get(app, '/api/v1/gameservers?limit=2&continue=garbage')).statusCode, 400);

  t.equal((await postGameServer(app, 'other', { profile: 'arena', name: 'b-2' })).statusCode, 201);
  t.same(
    await names(''),
    ['games/a-1', 'games/a-2', 'games/a-3', 'other/b-1', 'other/b-2'],
    'the whole list, answered from its last build, shows a server created since',
  );
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/api/v1/gameservers/games/a-2', headers: BASIC_ADMIN })).statusCode,
    204,
  );
  await until('a-2 gone from the list', async () => !(await names('')).includes('games/a-2'));
});

t.test('an Allocated game server is deleted only with ?force=true', async (t) => {
  const { app, kube } = await setUp(t);
  t.equal((await postGameServer(app, 'games', { profile: 'arena', name: 'busy' })).statusCode, 201);
  await ready(app, 'games', 'busy');
  const allocated = await app.inject({
    method: 'POST',
    url: '/api/v1/gameservers/games/busy/actions/allocate',
    headers: BASIC_ADMIN,
  });
  t.equal(allocated.statusCode, 200, allocated.body);
  const refused = await app.inject({ method: 'DELETE', url: '/api/v1/gameservers/games/busy', headers: BASIC_ADMIN });
  t.equal(refused.statusCode, 409);
  t.match(refused.json(), { detail: /Allocated.*force=true/ });
  t.equal((await kubectl(kube, ['get', 'gs', 'busy', '-n', 'games'])).code, 0, 'still there');
  const forced = await app.inject({
    method: 'DELETE',
    url: '/api/v1/gameservers/games/busy?force=true',
    headers: BASIC_ADMIN,
  });
  t.equal(forced.statusCode, 204);
  await until(
    'gone',
    async () => (await kubectl(kube, ['get', 'gs', '-n', 'games', '-o', 'name'])).stdout.trim() === '',
  );
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/api/v1/gameservers/games/busy', headers: BASIC_ADMIN })).statusCode,
    404,
  );
});

t.test('a forced delete of a game server that keeps changing deletes it', async (t) => {
  const { app, kube } = await setUp(t);
  t.equal((await postGameServer(app, 'games', { profile: 'arena', name: 'busy' })).statusCode, 201);
  await ready(app, 'games', 'busy');
  const custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  const ref = { group: 'agones.dev', version: 'v1', namespace: 'games', plural: 'gameservers', name: 'busy' };
  // Something else (a controller, the SDK sidecar) writes to it all the time, as Agones does while
  // a server starts; a forced delete is of this object whatever its version, never a 409.
  let deleting = true;
  const writer = (async () => {
    for (let i = 0; deleting && i < 2000; i++)
      await custom
        .patchNamespacedCustomObject(
          { ...ref, body: { metadata: { labels: { round: `r${i}` } } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )
        .catch(() => (deleting = false));
  })();
  await until(
    'a few writes',
    async () =>
      Number(
        (
          await kubectl(kube, ['get', 'gs', 'busy', '-n', 'games', '-o', 'jsonpath={.metadata.labels.round}'])
        ).stdout.slice(1),
      ) > 3,
  );
  const forced = await app.inject({
    method: 'DELETE',
    url: '/api/v1/gameservers/games/busy?force=true',
    headers: BASIC_ADMIN,
  });
  deleting = false;
  await writer;
  t.equal(forced.statusCode, 204, forced.body);
});

t.test('a game server created with kubectl is listed too, with no profile', async (t) => {
  const { app, kube } = await setUp(t);
  await kube.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'agones.dev',
    version: 'v1',
    namespace: 'games',
    plural: 'gameservers',
    body: {
      apiVersion: 'agones.dev/v1',
      kind: 'GameServer',
      metadata: { name: 'by-hand' },
      spec: { ports: [{ name: 'default', containerPort: 7654 }] },
    },
  });
  const view = await ready(app, 'games', 'by-hand');
  t.equal(view.profile, null);
  t.equal(view.players, null);
});
