import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { startKubeLite, type KubeLite } from '@gsp/kube-lite';
import {
  createAllocation,
  createFleet,
  createGameServer,
  gameservers,
  readGameServer,
  listGameServers,
  untilState,
} from './agones-helper.js';
import { kubectl, kubectlOk, startForTest, until } from './helper.js';

// What a game server's Agones SDK sidecar does to its GameServer, as a client of the API
// (Shutdown(), Reserve(seconds), player tracking), and what Agones then does about it.

interface GameServer {
  metadata: { name: string; deletionTimestamp?: string };
  status: {
    state: string;
    reservedUntil?: string | null;
    players?: { count: number; capacity: number; ids: string[] | null };
  };
}

function custom(kube: KubeLite): CustomObjectsApi {
  return kube.kubeConfig.makeApiClient(CustomObjectsApi);
}

async function getGameServer(kube: KubeLite, name: string): Promise<GameServer> {
  return readGameServer<GameServer>(custom(kube), name);
}

async function readyGameServer(
  kube: KubeLite,
  name: string,
  spec: object = {},
  labels: Record<string, string> = {},
): Promise<GameServer> {
  await createGameServer(custom(kube), { name, labels }, spec);
  return untilState<GameServer>(custom(kube), name);
}

/** What the SDK sidecar writes for Reserve(seconds): state Reserved and, for seconds > 0, reservedUntil. */
async function reserve(kube: KubeLite, name: string, reservedUntil: string | null): Promise<void> {
  await custom(kube).patchNamespacedCustomObject({
    ...gameservers,
    name,
    body: [
      { op: 'replace', path: '/status/state', value: 'Reserved' },
      { op: 'replace', path: '/status/reservedUntil', value: reservedUntil },
    ],
  });
}

async function allocate(
  kube: KubeLite,
  matchLabels: Record<string, string>,
): Promise<{ status: { state: string; gameServerName: string } }> {
  return createAllocation(custom(kube), { selectors: [{ matchLabels }] });
}

const inSeconds = (seconds: number): string => new Date(Date.now() + seconds * 1000).toISOString();

t.test('a GameServer its SDK sets to Shutdown is deleted, and its pod with it', async (t) => {
  const kube = await startForTest(t);
  await readyGameServer(kube, 'quitter');
  await kubectlOk(t, kube, ['patch', 'gs', 'quitter', '--type=merge', '-p', '{"status":{"state":"Shutdown"}}']);
  await until(async () => (await kubectl(kube, ['get', 'gs', 'quitter'])).code === 1, 'the GameServer to be gone');
  t.match((await kubectl(kube, ['get', 'gs', 'quitter'])).stderr, 'gameservers.agones.dev "quitter" not found');
  await until(async () => (await kubectl(kube, ['get', 'pod', 'quitter'])).code === 1, 'its pod to be gone');
});

t.test('a Reserved GameServer is not allocated and returns to Ready when reservedUntil passes', async (t) => {
  const kube = await startForTest(t);
  await readyGameServer(kube, 'held', {}, { lobby: 'eu' });
  await reserve(kube, 'held', inSeconds(1));
  t.match(await kubectlOk(t, kube, ['get', 'gs', 'held']), /held\s+Reserved\s+127\.0\.0\.1/);
  t.equal((await allocate(kube, { lobby: 'eu' })).status.state, 'UnAllocated', 'a Reserved server is not allocated');

  const ready = await until(
    async () => {
      const gs = await getGameServer(kube, 'held');
      return gs.status.state === 'Ready' && gs;
    },
    'Ready again',
    5000,
  );
  t.equal(ready.status.reservedUntil, null, 'the reservation is cleared');
  t.match(
    await kubectlOk(t, kube, ['logs', 'held']),
    /SDK: Ready\(\) called, game server is Ready\n.*SDK: Ready\(\) called/s,
  );
  t.match(await allocate(kube, { lobby: 'eu' }), { status: { state: 'Allocated', gameServerName: 'held' } });
});

t.test('a GameServer Reserved without reservedUntil stays Reserved', async (t) => {
  const kube = await startForTest(t);
  await readyGameServer(kube, 'forever');
  await readyGameServer(kube, 'briefly');
  await reserve(kube, 'forever', null);
  await reserve(kube, 'briefly', inSeconds(0.2));
  await until(
    async () => (await getGameServer(kube, 'briefly')).status.state === 'Ready',
    'the one with reservedUntil to be Ready',
  );
  t.equal((await getGameServer(kube, 'forever')).status.state, 'Reserved');
});

t.test('a Fleet scaled down keeps its Reserved and Allocated servers', async (t) => {
  const kube = await startForTest(t);
  await createFleet(custom(kube), 'squad', 3);
  const squad = (): Promise<GameServer[]> => listGameServers<GameServer>(custom(kube), 'agones.dev/fleet=squad');
  const servers = await until(async () => {
    const list = await squad();
    return list.length === 3 && list.every((gs) => gs.status.state === 'Ready') && list;
  }, 'three Ready servers');
  const reserved = servers[0]?.metadata.name as string;
  await reserve(kube, reserved, null);
  t.equal((await allocate(kube, { 'agones.dev/fleet': 'squad' })).status.state, 'Allocated');
  const allocatedName = (
    await until(async () => (await squad()).find((gs) => gs.status.state === 'Allocated'), 'the allocated one')
  ).metadata.name;
  t.not(allocatedName, reserved);

  await kubectlOk(t, kube, ['scale', 'fleet', 'squad', '--replicas=0']);
  const left = await until(async () => {
    const list = await squad();
    return list.length === 2 && list;
  }, 'the Ready one to go');
  t.same(left.map((gs) => gs.metadata.name).sort(), [reserved, allocatedName].sort());
  t.same(left.map((gs) => gs.status.state).sort(), ['Allocated', 'Reserved']);
});

t.test('a reservation still running when kube-lite stops ends after the restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kube-lite-data-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startKubeLite({ port: 0, dataDir, stepMs: 20 });
  await readyGameServer(first, 'sleeper');
  await reserve(first, 'sleeper', inSeconds(0.5));
  await first.close();
  const second = await startKubeLite({ port: 0, dataDir, stepMs: 20 });
  t.teardown(() => second.close());
  t.equal((await getGameServer(second, 'sleeper')).status.state, 'Reserved');
  await until(
    async () => (await getGameServer(second, 'sleeper')).status.state === 'Ready',
    'Ready after the restart',
    5000,
  );
});

t.test('with spec.players, status.players counts the players who join and leave on the console', async (t) => {
  const kube = await startForTest(t);
  const created = await createGameServer<GameServer>(
    custom(kube),
    { name: 'tracked' },
    { players: { initialCapacity: 2 } },
  );
  t.same(created.status.players, { count: 0, capacity: 2, ids: [] });
  await until(async () => (await getGameServer(kube, 'tracked')).status.state === 'Ready', 'Ready');

  const session = await kubectlOk(
    t,
    kube,
    ['exec', '-i', 'tracked', '--', 'sh'],
    'join alice\njoin bob\njoin carol\nleave alice\n',
  );
  t.equal(session, 'alice joined\nbob joined\ncarol refused: server is full (capacity 2)\nalice left\n');
  const players = await until(async () => {
    const gs = await getGameServer(kube, 'tracked');
    return gs.status.players?.count === 1 && gs.status.players;
  }, 'status.players to follow');
  t.same(players, { count: 1, capacity: 2, ids: ['bob'] });
});

t.test('without spec.players a GameServer has no status.players, whatever happens on its console', async (t) => {
  const kube = await startForTest(t);
  await readyGameServer(kube, 'untracked');
  t.equal(await kubectlOk(t, kube, ['exec', 'untracked', '--', 'join', 'alice']), 'alice joined\n');
  t.equal(await kubectlOk(t, kube, ['exec', 'untracked', '--', 'players']), '1 player(s): alice\n');
  t.notOk('players' in (await getGameServer(kube, 'untracked')).status);
});

t.test('restarting the game process disconnects its players and keeps the GameServer as it is', async (t) => {
  const kube = await startForTest(t);
  const before = await readyGameServer(kube, 'phoenix', { players: { initialCapacity: 8 } });
  await kubectlOk(t, kube, ['exec', 'phoenix', '--', 'join', 'alice']);
  await until(async () => (await getGameServer(kube, 'phoenix')).status.players?.count === 1, 'alice to count');

  t.equal(await kubectlOk(t, kube, ['exec', 'phoenix', '--', 'restart']), 'game process restarted\n');
  t.match(
    await kubectlOk(t, kube, ['logs', 'phoenix']),
    /game process restarting\n.*SDK: Ready\(\) called, game server is Ready\n$/s,
  );
  t.equal(await kubectlOk(t, kube, ['exec', 'phoenix', '--', 'players']), '0 players\n');
  const after = await until(async () => {
    const gs = await getGameServer(kube, 'phoenix');
    return gs.status.players?.count === 0 && gs;
  }, 'the players to be gone from the status');
  t.same(after.status.players, { count: 0, capacity: 8, ids: [] });
  t.equal(after.status.state, 'Ready');
  t.equal(after.metadata.name, before.metadata.name);
  const pod = await kube.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNamespacedPod({ namespace: 'default', name: 'phoenix' });
  t.equal(pod.status?.phase, 'Running', 'the same pod runs on');
});
