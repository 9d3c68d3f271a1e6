import t from 'tap';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeLite } from '@gsp/kube-lite';
import {
  createAllocation,
  createFleet,
  createGameServer,
  fleets,
  gameservers,
  listGameServers,
  readGameServer,
  untilState,
} from './agones-helper.js';
import { kubectl, kubectlOk, rawWatch, request, startForTest, until } from './helper.js';

interface GameServer {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string; finalizers?: string[] };
  spec: { ports: { name: string; hostPort: number; containerPort: number; protocol: string }[] };
  status: { state: string; address: string; nodeName: string; ports: { name: string; port: number }[] | null };
}

interface Allocation {
  metadata: { name: string };
  status: {
    state: string;
    gameServerName: string;
    address: string;
    ports: { name: string; port: number }[] | null;
    nodeName: string;
  };
}

function clients(kube: KubeLite): { custom: CustomObjectsApi; core: CoreV1Api } {
  return { custom: kube.kubeConfig.makeApiClient(CustomObjectsApi), core: kube.kubeConfig.makeApiClient(CoreV1Api) };
}

t.test(
  'a new GameServer goes Creating, Scheduled, Ready within about a second, with an address and host port',
  async (t) => {
    const kube = await startForTest(t, { stepMs: 150 });
    const { custom, core } = clients(kube);
    const watch = rawWatch(t, kube, '/apis/agones.dev/v1/namespaces/default/gameservers?watch=1');
    const started = Date.now();
    const created = await createGameServer<GameServer>(
      custom,
      { name: 'gs' },
      { ports: [{ name: 'game', containerPort: 7777 }] },
    );
    t.equal(created.status.state, 'Creating');
    t.match(created.spec.ports[0], {
      name: 'game',
      containerPort: 7777,
      protocol: 'UDP',
      portPolicy: 'Dynamic',
      hostPort: Number,
    });
    const ready = await until(
      async () => {
        const gs = await readGameServer<GameServer>(custom, 'gs');
        return gs.status.state === 'Ready' && gs;
      },
      'Ready',
      2000,
    );
    t.ok(Date.now() - started < 1500, 'Ready within about a second');
    t.equal(ready.status.address, '127.0.0.1');
    t.same(ready.status.ports, [{ name: 'game', port: created.spec.ports[0]?.hostPort }]);
    t.equal(ready.status.nodeName, 'kube-lite');
    const states = watch.events
      .map((e) => (e.object as unknown as GameServer).status.state)
      .filter((s, i, all) => s !== all[i - 1]);
    t.same(states, ['Creating', 'Scheduled', 'Ready']);
    const pod = await core.readNamespacedPod({ namespace: 'default', name: 'gs' });
    t.equal(pod.metadata?.labels?.['agones.dev/gameserver'], 'gs', 'each game server has a pod of the same name');
  },
);

t.test('deleting a GameServer passes through Shutdown before it is gone, and its pod goes with it', async (t) => {
  const kube = await startForTest(t);
  const { custom, core } = clients(kube);
  await createGameServer(custom, { name: 'bye' });
  await untilState(custom, 'bye');
  const watch = rawWatch(
    t,
    kube,
    '/apis/agones.dev/v1/namespaces/default/gameservers?watch=1&fieldSelector=metadata.name%3Dbye',
  );
  const answer = (await custom.deleteNamespacedCustomObject({ ...gameservers, name: 'bye' })) as GameServer;
  t.ok(answer.metadata.deletionTimestamp, 'delete answers the object marked for deletion');
  t.same(answer.metadata.finalizers, ['agones.dev']);
  await until(() => watch.events.some((e) => e.type === 'DELETED'), 'the DELETED event');
  t.ok(
    watch.events.some((e) => e.type === 'MODIFIED' && (e.object as unknown as GameServer).status.state === 'Shutdown'),
    'it was Shutdown first',
  );
  await until(
    async () =>
      !((await core.listNamespacedPod({ namespace: 'default' })).items ?? []).some((p) => p.metadata?.name === 'bye'),
    'the pod to go',
  );
});

t.test('a Fleet keeps spec.replicas GameServers labelled with its name', async (t) => {
  const kube = await startForTest(t);
  const { custom } = clients(kube);
  await createFleet(custom, 'lobby', 3, { metadata: { labels: { mode: 'ffa' } }, spec: {} });
  const ready = async (n: number): Promise<void> => {
    await until(async () => {
      const fleet = (await custom.getNamespacedCustomObject({ ...fleets, name: 'lobby' })) as {
        status: { replicas: number; readyReplicas: number };
      };
      return fleet.status.replicas === n && fleet.status.readyReplicas === n;
    }, `${n} ready replicas`);
  };
  await ready(3);
  const servers = await listGameServers<GameServer>(custom, 'agones.dev/fleet=lobby');
  t.equal(servers.length, 3);
  t.ok(servers.every((gs) => gs.metadata.labels?.mode === 'ffa' && gs.metadata.name.startsWith('lobby-')));

  // A deleted server is replaced.
  await custom.deleteNamespacedCustomObject({ ...gameservers, name: servers[0]?.metadata.name ?? '' });
  await until(
    async () =>
      !(await listGameServers<GameServer>(custom, 'agones.dev/fleet=lobby')).some(
        (gs) => gs.metadata.name === servers[0]?.metadata.name,
      ),
    'the old one to go',
  );
  await ready(3);

  await custom.patchNamespacedCustomObject({
    ...fleets,
    name: 'lobby',
    body: [{ op: 'replace', path: '/spec/replicas', value: 1 }],
  });
  await ready(1);

  await custom.deleteNamespacedCustomObject({ ...fleets, name: 'lobby' });
  await until(
    async () => (await listGameServers<GameServer>(custom, 'agones.dev/fleet=lobby')).length === 0,
    "the fleet's servers to be deleted with it",
  );
});

t.test('an allocation picks a Ready server matching its selectors and marks it Allocated', async (t) => {
  const kube = await startForTest(t);
  const { custom } = clients(kube);
  await createFleet(custom, 'arena', 2);
  await until(
    async () =>
      (await listGameServers<GameServer>(custom, 'agones.dev/fleet=arena')).filter((gs) => gs.status.state === 'Ready')
        .length === 2,
    'two Ready',
  );

  const allocation = await createAllocation<Allocation>(custom, {
    selectors: [{ matchLabels: { 'agones.dev/fleet': 'arena' } }],
    metadata: { labels: { match: 'm-1' } },
  });
  t.equal(allocation.status.state, 'Allocated');
  t.equal(allocation.status.address, '127.0.0.1');
  t.equal(allocation.status.nodeName, 'kube-lite');
  t.equal(allocation.status.ports?.length, 1);
  const allocated = await readGameServer<GameServer>(custom, allocation.status.gameServerName);
  t.equal(allocated.status.state, 'Allocated');
  t.equal(allocated.metadata.labels?.match, 'm-1', 'allocation metadata is applied to the server');

  const fleet = await until(async () => {
    const f = (await custom.getNamespacedCustomObject({ ...fleets, name: 'arena' })) as {
      status: { allocatedReplicas: number; readyReplicas: number };
    };
    return f.status.allocatedReplicas === 1 && f;
  }, 'the fleet status to count the allocation');
  t.equal(fleet.status.readyReplicas, 1);

  const second = await createAllocation<Allocation>(custom, {
    selectors: [{ matchLabels: { 'agones.dev/fleet': 'arena' } }],
  });
  t.equal(second.status.state, 'Allocated');
  t.not(second.status.gameServerName, allocation.status.gameServerName);
  const third = await createAllocation<Allocation>(custom, {
    selectors: [{ matchLabels: { 'agones.dev/fleet': 'arena' } }],
  });
  t.equal(third.status.state, 'UnAllocated', 'no Ready server is left');
});

t.test('an allocation whose selectors match nothing is UnAllocated', async (t) => {
  const kube = await startForTest(t);
  const { custom } = clients(kube);
  await createGameServer(custom, { name: 'solo', labels: { map: 'dust' } });
  await untilState(custom, 'solo');
  const none = await createAllocation<Allocation>(custom, { selectors: [{ matchLabels: { map: 'nuke' } }] });
  t.match(none.status, { state: 'UnAllocated', gameServerName: '' });
  const some = await createAllocation<Allocation>(custom, {
    selectors: [{ matchExpressions: [{ key: 'map', operator: 'In', values: ['nuke', 'dust'] }] }],
  });
  t.match(some.status, { state: 'Allocated', gameServerName: 'solo' });
});

t.test(
  "a GameServer name over 63 characters is refused with Agones' message; a long generateName is cut to fit",
  async (t) => {
    const kube = await startForTest(t);
    const { custom } = clients(kube);
    const body = (metadata: object) => ({
      apiVersion: 'agones.dev/v1',
      kind: 'GameServer',
      metadata,
      spec: { template: { spec: { containers: [{ name: 'server', image: 'game:1' }] } } },
    });
    const long = 'g'.repeat(64);
    const refused = await custom
      .createNamespacedCustomObject({ ...gameservers, body: body({ name: long }) })
      .catch((err: { code?: number; body?: string }) => err);
    t.equal((refused as { code?: number }).code, 422);
    t.match(
      String((refused as { body?: string }).body),
      `Length of GameServer '${long}' name should be no more than 63 characters.`,
    );
    const generated = (await custom.createNamespacedCustomObject({
      ...gameservers,
      body: body({ generateName: long }),
    })) as GameServer;
    t.equal(generated.metadata.name.length, 63);
    await until(
      async () => (await listGameServers<GameServer>(custom)).find((g) => g.status?.state === 'Ready'),
      'the generated one to be Ready',
    );
  },
);

t.test(
  'an allocation over HTTP answers 201 with Allocated for a Ready match and UnAllocated when only busy ones match',
  async (t) => {
    const kube = await startForTest(t);
    const { custom } = clients(kube);
    await createGameServer(custom, { name: 'one', labels: { map: 'dust' } });
    await createGameServer(custom, { name: 'other', labels: { map: 'nuke' } });
    await until(
      async () => (await listGameServers<GameServer>(custom)).every((gs) => gs.status.state === 'Ready'),
      'both Ready',
    );
    const path = '/apis/allocation.agones.dev/v1/namespaces/default/gameserverallocations';
    const body = {
      apiVersion: 'allocation.agones.dev/v1',
      kind: 'GameServerAllocation',
      spec: {
        selectors: [{ matchLabels: { map: 'dust' } }],
        metadata: { labels: { match: 'm-7' }, annotations: { region: 'eu' } },
      },
    };
    const first = await request<Allocation>(kube, 'POST', path, body);
    t.equal(first.status, 201);
    t.match(first.body.status, { state: 'Allocated', gameServerName: 'one', address: '127.0.0.1' });
    const allocated = (await custom.getNamespacedCustomObject({ ...gameservers, name: 'one' })) as GameServer & {
      metadata: { annotations?: Record<string, string> };
    };
    t.match(allocated, {
      status: { state: 'Allocated' },
      metadata: { labels: { map: 'dust', match: 'm-7' }, annotations: { region: 'eu' } },
    });

    const second = await request<Allocation>(kube, 'POST', path, body);
    t.equal(second.status, 201, 'Agones answers 201 Created for an UnAllocated allocation too');
    t.match(second.body.status, { state: 'UnAllocated', gameServerName: '' });
    t.equal(
      (await readGameServer<GameServer>(custom, 'other')).status.state,
      'Ready',
      'a server that does not match is left alone',
    );
    t.match(
      await kubectlOk(t, kube, ['get', 'gs']),
      /one\s+Allocated\s+127\.0\.0\.1\s+\d+\s+kube-lite[^\n]*\nother\s+Ready/,
    );
  },
);

t.test('a Fleet scales through its scale subresource, with client-node and with kubectl scale', async (t) => {
  const kube = await startForTest(t);
  const { custom } = clients(kube);
  await createFleet(custom, 'pool', 1);
  const servers = async (n: number): Promise<void> => {
    await until(
      async () => (await listGameServers<GameServer>(custom, 'agones.dev/fleet=pool')).length === n,
      `${n} servers`,
    );
  };
  await servers(1);

  const merged = (await custom.patchNamespacedCustomObjectScale(
    { ...fleets, name: 'pool', body: { spec: { replicas: 2 } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  )) as { kind: string; apiVersion: string; spec: { replicas: number } };
  t.match(merged, { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 } });
  await servers(2);

  await custom.patchNamespacedCustomObjectScale({
    ...fleets,
    name: 'pool',
    body: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
  });
  await servers(3);

  const current = (await custom.getNamespacedCustomObjectScale({ ...fleets, name: 'pool' })) as {
    metadata: object;
    spec: { replicas: number };
  };
  t.equal(current.spec.replicas, 3);
  await custom.replaceNamespacedCustomObjectScale({
    ...fleets,
    name: 'pool',
    body: { ...current, spec: { replicas: 1 } },
  });
  await servers(1);

  t.match(await kubectlOk(t, kube, ['scale', 'fleet', 'pool', '--replicas=2']), 'fleet.agones.dev/pool scaled');
  await servers(2);
  t.equal((await kubectl(kube, ['get', 'fleet', 'pool', '-o', 'jsonpath={.spec.replicas}'])).stdout, '2');
});

t.test('a PersistentVolumeClaim owned by a GameServer is deleted after the GameServer is', async (t) => {
  const kube = await startForTest(t);
  const { custom, core } = clients(kube);
  const gs = await createGameServer<GameServer & { metadata: { uid: string } }>(custom, { name: 'world' });
  await core.createNamespacedPersistentVolumeClaim({
    namespace: 'default',
    body: {
      metadata: {
        name: 'world-save',
        ownerReferences: [{ apiVersion: 'agones.dev/v1', kind: 'GameServer', name: 'world', uid: gs.metadata.uid }],
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  await core.createNamespacedPersistentVolumeClaim({
    namespace: 'default',
    body: {
      metadata: { name: 'unowned' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  await until(
    async () => /world-save\s+Bound/.test((await kubectl(kube, ['get', 'pvc'])).stdout),
    'the claim to be Bound',
  );

  await custom.deleteNamespacedCustomObject({ ...gameservers, name: 'world' });
  await until(
    async () => (await kubectl(kube, ['get', 'pvc', 'world-save'])).code === 1,
    'the owned claim to be collected',
  );
  t.match((await kubectl(kube, ['get', 'pvc', 'world-save'])).stderr, 'persistentvolumeclaims "world-save" not found');
  t.match(await kubectlOk(t, kube, ['get', 'pvc']), /^NAME.*\nunowned\s+Bound/, 'a claim nobody owns stays');
});
