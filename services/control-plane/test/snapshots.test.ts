import t from 'tap';
import type { Test as Tap } from 'tap';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import type { KubeLite } from '@gsp/kube-lite';
import Fastify from 'fastify';
import { kubeClients } from '../src/kube/client.js';
import { SnapshotRetention } from '../src/snapshots/retention.js';
import type { RetentionAuditLine } from '../src/snapshots/retention.js';
import { SnapshotStore } from '../src/snapshots/store.js';
import {
  BASIC_ADMIN,
  GAME_PROFILE,
  buildWithProfiles,
  createBareGameServer,
  createKey,
  kubectl,
  postGameServer,
  readyServer,
  refusedWhileHeld,
  startKube,
  until,
} from './helper.js';

const BASE = GAME_PROFILE;
const STORAGE = { size: '1Gi', mountPath: '/data' };
const PROFILES: Record<string, object> = {
  world: {
    ...BASE,
    storage: STORAGE,
    snapshot: { preCommand: ['say', 'saving'], postCommand: ['say', 'saved'] },
    actions: { slow: { command: ['sleep', '30'], timeoutSeconds: 2 } },
  },
  bare: { ...BASE, storage: STORAGE },
  flat: BASE,
  tiny: { ...BASE, storage: { size: '512Mi', mountPath: '/data' } },
  kept: { ...BASE, storage: STORAGE, snapshot: { keep: 2 } },
  // A save command the image lacks: it exits 127 with a complaint on stderr.
  broken: {
    ...BASE,
    storage: STORAGE,
    snapshot: { preCommand: ['save-all', 'flush'], postCommand: ['say', 'resumed'] },
  },
};

interface SnapshotView {
  namespace: string;
  name: string;
  gameServer: string;
  profile: string | null;
  readyToUse: boolean;
  restoreSize: string | null;
  createdAt: string;
  error: string | null;
}

interface KubeSnapshot {
  metadata: { name: string; labels: Record<string, string> };
  spec: { source: { persistentVolumeClaimName: string } };
}

const setUp = (t: Tap) => buildWithProfiles(t, PROFILES);

const snap = (app: FastifyInstance, gameServer: string, name?: string, headers: Record<string, string> = BASIC_ADMIN) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/gameservers/games/${gameServer}/snapshots`,
    headers,
    ...(name ? { payload: { name } } : {}),
  });

const listOf = async (
  app: FastifyInstance,
  url: string,
  headers: Record<string, string> = BASIC_ADMIN,
): Promise<SnapshotView[]> => {
  const res = await app.inject({ url, headers });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json() as SnapshotView[];
};

const ready = (app: FastifyInstance, gameServer: string, name: string) =>
  until(`${name} ready`, async () =>
    (await listOf(app, `/api/v1/gameservers/games/${gameServer}/snapshots`)).find(
      (s) => s.name === name && s.readyToUse,
    ),
  );

async function kubeSnapshots(kube: KubeLite, selector?: string): Promise<KubeSnapshot[]> {
  const run = await kubectl(kube, [
    'get',
    'volumesnapshot',
    '-n',
    'games',
    '-o',
    'json',
    ...(selector ? ['-l', selector] : []),
  ]);
  if (run.code !== 0) throw new Error(run.stderr);
  return (JSON.parse(run.stdout) as { items: KubeSnapshot[] }).items;
}

/** The pod's log lines with their times, as `kubectl logs --timestamps` shows them. */
async function podLog(kube: KubeLite, pod: string): Promise<{ at: number; text: string }[]> {
  const run = await kubectl(kube, ['logs', pod, '-n', 'games', '--timestamps']);
  if (run.code !== 0) throw new Error(run.stderr);
  return run.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => ({ at: Date.parse(l.slice(0, l.indexOf(' '))), text: l.slice(l.indexOf(' ') + 1) }));
}

t.test(
  'an operator takes a snapshot: preCommand, then a labelled VolumeSnapshot of the data claim, then postCommand',
  async (t) => {
    const { app, kube, audit } = await setUp(t);
    await readyServer(app, 'w1', 'world');
    const operator = await createKey(app, 'op', 'operator');
    const res = await snap(app, 'w1', 'w1-first', { 'x-api-key': operator });
    t.equal(res.statusCode, 202, res.body);
    t.equal(res.headers.location, '/api/v1/snapshots/games/w1-first');
    const located = await until('the snapshot at its Location', async () => {
      const got = await app.inject({ url: String(res.headers.location), headers: { 'x-api-key': operator } });
      return got.statusCode === 200 ? got : undefined;
    });
    t.match(
      located.json(),
      { namespace: 'games', name: 'w1-first', gameServer: 'w1' },
      'the Location answers the snapshot',
    );
    t.equal(
      (await app.inject({ url: '/api/v1/snapshots/games/nope', headers: { 'x-api-key': operator } })).statusCode,
      404,
    );
    const body = res.json() as SnapshotView & {
      hooks: { preCommand: { exitCode: number }; postCommand: { exitCode: number } };
    };
    t.match(body, { namespace: 'games', name: 'w1-first', gameServer: 'w1', profile: 'world', error: null });
    t.match(body.hooks, {
      preCommand: { exitCode: 0, stdout: '[server] saving\n', error: null },
      postCommand: { exitCode: 0, error: null },
    });

    const [shown] = await kubeSnapshots(kube);
    t.equal(shown?.metadata.name, 'w1-first');
    t.same(shown?.spec.source, { persistentVolumeClaimName: 'w1-data' }, "a snapshot of the game server's data claim");
    t.match(shown?.metadata.labels, {
      'gsp.dev/gameserver': 'w1',
      'gsp.dev/profile': 'world',
      'app.kubernetes.io/managed-by': 'gsp-control-plane',
    });

    const log = await podLog(kube, 'w1');
    const saving = log.find((l) => l.text === '[say] saving');
    const saved = log.find((l) => l.text === '[say] saved');
    t.ok(saving && saved, 'both commands ran in the game console');
    const cut = Date.parse(body.createdAt);
    t.ok(
      saving!.at <= cut && cut <= saved!.at,
      `preCommand (${saving?.at}) before the snapshot (${cut}) before postCommand (${saved?.at})`,
    );

    const done = await ready(app, 'w1', 'w1-first');
    t.match(done, { readyToUse: true, restoreSize: '1Gi', error: null });
    const line = audit.lines().find((l) => l.method === 'POST' && String(l.path).endsWith('/snapshots'));
    t.match(
      line,
      { status: 202, target: 'games/w1', outcome: 'created w1-first', role: 'operator' },
      'audited with the snapshot it made',
    );
  },
);

t.test('without a name a snapshot is named after the game server and the UTC second', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'plain-1', 'bare');
  const before = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const res = await snap(app, 'plain-1');
  t.equal(res.statusCode, 202, res.body);
  const { name, hooks } = res.json() as { name: string; hooks: unknown };
  t.match(name, /^plain-1-\d{14}$/);
  t.ok(name.slice(-14) >= before, 'the time it was taken');
  t.same(hooks, { preCommand: null, postCommand: null }, 'a profile without commands runs none');
  const again = await snap(app, 'plain-1', name);
  t.equal(again.statusCode, 409, 'a name taken is a conflict');
  t.match(again.json(), { detail: /already exists/ });
});

t.test('snapshots are listed per game server and across namespaces, and deleted by admins only', async (t) => {
  const { app, kube } = await setUp(t);
  await readyServer(app, 'a1', 'bare');
  await readyServer(app, 'b1', 'bare');
  for (const [gs, name] of [
    ['a1', 'a1-one'],
    ['a1', 'a1-two'],
    ['b1', 'b1-one'],
  ])
    t.equal((await snap(app, gs!, name)).statusCode, 202);
  t.same(
    (await listOf(app, '/api/v1/gameservers/games/a1/snapshots')).map((s) => s.name),
    ['a1-one', 'a1-two'],
    "only that server's, by name",
  );
  t.same(
    (await listOf(app, '/api/v1/snapshots')).map((s) => s.name),
    ['a1-one', 'a1-two', 'b1-one'],
  );
  t.same(
    (await listOf(app, '/api/v1/snapshots?namespace=games&limit=2')).map((s) => s.name),
    ['a1-one', 'a1-two'],
    'paged',
  );
  t.same(await listOf(app, '/api/v1/snapshots?namespace=default'), []);

  const viewer = await createKey(app, 'viewer', 'viewer');
  const operator = await createKey(app, 'operator', 'operator');
  t.equal((await listOf(app, '/api/v1/snapshots', { 'x-api-key': viewer })).length, 3, 'viewers list');
  t.equal(
    (await snap(app, 'a1', 'by-viewer', { 'x-api-key': viewer })).statusCode,
    403,
    'viewers do not take snapshots',
  );
  const del = (name: string, headers: Record<string, string>) =>
    app.inject({ method: 'DELETE', url: `/api/v1/snapshots/games/${name}`, headers });
  t.equal((await del('a1-one', { 'x-api-key': operator })).statusCode, 403, 'operators do not delete');
  t.equal((await del('a1-one', BASIC_ADMIN)).statusCode, 204);
  t.same((await kubeSnapshots(kube)).map((s) => s.metadata.name).sort(), ['a1-two', 'b1-one'], 'gone from Kubernetes');
  t.same(
    (await listOf(app, '/api/v1/gameservers/games/a1/snapshots')).map((s) => s.name),
    ['a1-two'],
    'and from the next list',
  );
  t.equal((await del('a1-one', BASIC_ADMIN)).statusCode, 404);

  // A VolumeSnapshot another tool made is not the control plane's to list or delete.
  await createSnapshot(kube, 'foreign', 'a1-data');
  t.notOk(
    (await listOf(app, '/api/v1/snapshots')).some((s) => s.name === 'foreign'),
    'not listed',
  );
  t.equal((await del('foreign', BASIC_ADMIN)).statusCode, 404);
  t.equal((await kubectl(kube, ['get', 'volumesnapshot', 'foreign', '-n', 'games'])).code, 0, 'and still there');
});

t.test('a game server is restored from a ready snapshot: its claim names the snapshot as dataSource', async (t) => {
  const { app, kube } = await setUp(t);
  await readyServer(app, 'orig', 'world');
  t.equal((await snap(app, 'orig', 'orig-save')).statusCode, 202);
  await ready(app, 'orig', 'orig-save');
  const res = await postGameServer(app, 'games', { profile: 'world', name: 'copy', fromSnapshot: 'orig-save' });
  t.equal(res.statusCode, 201, res.body);
  const claim = await kubectl(kube, ['get', 'pvc', 'copy-data', '-n', 'games', '-o', 'json']);
  t.equal(claim.code, 0, claim.stderr);
  const spec = (JSON.parse(claim.stdout) as { spec: { dataSource: unknown } }).spec;
  t.same(spec.dataSource, { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'orig-save' });
  await until(
    'the restored claim Bound',
    async () =>
      (await kubectl(kube, ['get', 'pvc', 'copy-data', '-n', 'games', '-o', 'jsonpath={.status.phase}'])).stdout ===
      'Bound',
  );
  await until(
    'copy Ready',
    async () =>
      ((await app.inject({ url: '/api/v1/gameservers/games/copy', headers: BASIC_ADMIN })).json() as { state: string })
        .state === 'Ready',
  );
  const operator = await createKey(app, 'op', 'operator');
  const asOperator = await app.inject({
    method: 'POST',
    url: '/api/v1/gameservers/games',
    headers: { 'x-api-key': operator },
    payload: { profile: 'world', fromSnapshot: 'orig-save' },
  });
  t.equal(asOperator.statusCode, 403, 'restoring is creating: admins only');
});

t.test(
  'a restore is refused: unknown snapshot 422; a snapshot not ready, a profile without storage or with too little 409',
  async (t) => {
    const { app, kube } = await setUp(t);
    const restore = (profile: string, fromSnapshot: string) =>
      postGameServer(app, 'games', { profile, name: 'restored', fromSnapshot });
    const unknown = await restore('world', 'nothing-here');
    t.equal(unknown.statusCode, 422);
    t.match(unknown.json(), { detail: 'unknown snapshot games/nothing-here' });

    // Of a claim that does not exist: the snapshotter reports an error and it never becomes ready.
    await createSnapshot(kube, 'orphan', 'gone-data');
    await until(
      'the snapshotter to report',
      async () =>
        (
          await kubectl(kube, [
            'get',
            'volumesnapshot',
            'orphan',
            '-n',
            'games',
            '-o',
            'jsonpath={.status.error.message}',
          ])
        ).stdout !== '',
    );
    const notReady = await restore('world', 'orphan');
    t.equal(notReady.statusCode, 409);
    t.match(notReady.json(), { detail: /^snapshot games\/orphan is not ready to use/ });

    await readyServer(app, 'src', 'bare');
    t.equal((await snap(app, 'src', 'src-save')).statusCode, 202);
    await ready(app, 'src', 'src-save');
    const flat = await restore('flat', 'src-save');
    t.equal(flat.statusCode, 409);
    t.match(flat.json(), {
      detail: 'profile flat has no storage: there is nothing to restore snapshot games/src-save into',
    });
    const tiny = await restore('tiny', 'src-save');
    t.equal(tiny.statusCode, 409, 'a claim smaller than the snapshot would never be bound');
    t.match(tiny.json(), {
      detail: "snapshot games/src-save needs a volume of at least 1Gi; profile tiny's storage is 512Mi",
    });
    t.equal((await kubectl(kube, ['get', 'gs', 'restored', '-n', 'games'])).code, 1, 'no game server was created');
  },
);

t.test(
  'a snapshot is refused with 409 when there is no storage to snapshot, and 404 for an unknown game server',
  async (t) => {
    const { app, kube } = await setUp(t);
    await readyServer(app, 'nodisk', 'flat');
    const flat = await snap(app, 'nodisk');
    t.equal(flat.statusCode, 409);
    t.match(flat.json(), { detail: 'profile flat has no storage: nothing to snapshot' });

    await createBareGameServer(kube, 'games', 'handmade');
    await until(
      'handmade cached',
      async () =>
        (await app.inject({ url: '/api/v1/gameservers/games/handmade', headers: BASIC_ADMIN })).statusCode === 200,
    );
    const handmade = await snap(app, 'handmade');
    t.equal(handmade.statusCode, 409);
    t.match(handmade.json(), { detail: /was not created from a profile/ });

    t.equal((await snap(app, 'nobody')).statusCode, 404);
    t.equal(
      (await app.inject({ url: '/api/v1/gameservers/games/nobody/snapshots', headers: BASIC_ADMIN })).statusCode,
      404,
    );
    t.same(await kubeSnapshots(kube), [], 'no VolumeSnapshot was made');
  },
);

t.test('a failing preCommand takes no snapshot, still runs postCommand, and says both in the 409', async (t) => {
  const { app, kube, audit } = await setUp(t);
  await readyServer(app, 'shaky', 'broken');
  const res = await snap(app, 'shaky', 'shaky-1');
  t.equal(res.statusCode, 409);
  const { detail } = res.json() as { detail: string };
  t.match(
    detail,
    new RegExp(
      '^no snapshot was taken: preCommand exited with code 127 ' +
        '\\(exec: "save-all": executable file not found in \\$PATH\\); postCommand exited with code 0$',
    ),
  );
  t.same(await kubeSnapshots(kube), [], 'no VolumeSnapshot');
  t.ok(
    (await podLog(kube, 'shaky')).some((l) => l.text === '[say] resumed'),
    'postCommand ran',
  );
  t.match(
    audit.lines().find((l) => String(l.path).endsWith('/snapshots')),
    { status: 409, outcome: 'not created, preCommand exit 127' },
  );
});

t.test(
  'a snapshot waits for no action: one running makes it 409, and the action lock is free again after',
  async (t) => {
    const { app } = await setUp(t);
    await readyServer(app, 'busy', 'world');
    let tries = 0;
    const { refused, held } = await refusedWhileHeld(
      'refused while the action runs',
      () => app.inject({ method: 'POST', url: '/api/v1/gameservers/games/busy/actions/slow', headers: BASIC_ADMIN }),
      // A fresh name each time: a probe that wins the race leaves no snapshot in the way of the last step.
      () => snap(app, 'busy', `probe-${(tries += 1)}`),
    );
    t.match(refused.json(), { detail: /action slow is already running on game server games\/busy/ });
    t.equal((await held).statusCode, 504);
    t.equal((await snap(app, 'busy', 'busy-1')).statusCode, 202, 'taken once the action ended');
  },
);

t.test('retention keeps exactly the newest `keep` ready snapshots of a game server', async (t) => {
  const { app, kube } = await setUp(t);
  await readyServer(app, 'k1', 'kept');
  await readyServer(app, 'k2', 'kept');
  for (const name of ['k1-a', 'k1-b', 'k1-c', 'k1-d']) t.equal((await snap(app, 'k1', name)).statusCode, 202);
  t.equal((await snap(app, 'k2', 'k2-a')).statusCode, 202);
  const names = async (gs: string) =>
    (await kubeSnapshots(kube, `gsp.dev/gameserver=${gs}`)).map((s) => s.metadata.name).sort();
  const kept = await until('two of k1 left', async () => {
    const now = await names('k1');
    return now.length === 2 && now;
  });
  t.same(kept, ['k1-c', 'k1-d'], 'the newest two');
  t.same(await names('k2'), ['k2-a'], "another server's are its own count");
  await ready(app, 'k1', 'k1-d');
  t.same(
    (await listOf(app, '/api/v1/gameservers/games/k1/snapshots')).map((s) => s.name),
    ['k1-c', 'k1-d'],
  );
});

t.test(
  'each deletion by retention is one audit line naming the snapshot, written by the replica whose delete succeeded',
  async (t) => {
    const kube = await startKube(t);
    await kube.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'games' } } });
    const log = Fastify({ logger: false }).log;
    const lines: RetentionAuditLine[] = [];
    // Two replicas watching the same snapshots.
    for (let i = 0; i < 2; i++) {
      const { custom, watch } = kubeClients(kube.kubeConfig, { requestTimeoutMs: 5000, watchTimeoutMs: 30_000 });
      const store = new SnapshotStore(custom, watch, log);
      const retention = new SnapshotRetention({
        informer: store.informer,
        custom,
        keepOf: (p) => (p === 'kept' ? 1 : undefined),
        log,
        writeAudit: (l) => lines.push(l),
      });
      await store.start();
      retention.start();
      t.teardown(async () => {
        await retention.stop();
        await store.stop();
      });
    }
    await kube.kubeConfig.makeApiClient(CoreV1Api).createNamespacedPersistentVolumeClaim({
      namespace: 'games',
      body: {
        metadata: { name: 'x-data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    // Labelled as the control plane labels its own; asked for a second apart, newest last.
    for (const [i, name] of ['x-old', 'x-mid', 'x-new'].entries()) {
      const labels = {
        'gsp.dev/gameserver': 'x',
        'gsp.dev/profile': 'kept',
        'app.kubernetes.io/managed-by': 'gsp-control-plane',
      };
      const annotations = { 'gsp.dev/requested-at': new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString() };
      await createSnapshot(kube, name, 'x-data', { labels, annotations });
    }
    await until('two deletions audited', async () => lines.length >= 2 && (await kubeSnapshots(kube)).length === 1);
    t.same(
      (await kubeSnapshots(kube)).map((s) => s.metadata.name),
      ['x-new'],
    );
    t.same(
      lines.map((l) => l.target).sort(),
      ['games/x-mid', 'games/x-old'],
      'one line per deleted snapshot, though two replicas watched',
    );
    t.match(lines[0], {
      level: 'audit',
      action: 'snapshot.retention',
      user: 'gsp-control-plane',
      result: 'success',
      outcome: /profile kept keeps the newest 1 ready snapshots of game server games\/x/,
    });
    t.ok(!Number.isNaN(Date.parse(lines[0]!.timestamp)));
  },
);

/** A VolumeSnapshot of claim `source` in games, made as another tool would make it (unless given our labels). */
async function createSnapshot(kube: KubeLite, name: string, source: string, metadata: object = {}): Promise<void> {
  await kube.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: 'snapshot.storage.k8s.io',
    version: 'v1',
    namespace: 'games',
    plural: 'volumesnapshots',
    body: {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshot',
      metadata: { name, ...metadata },
      spec: { source: { persistentVolumeClaimName: source } },
    },
  });
}
