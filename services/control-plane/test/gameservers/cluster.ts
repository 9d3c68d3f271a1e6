import Fastify from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import type { CoreV1Api, CustomObjectsApi, KubernetesListObject, Watch } from '@kubernetes/client-node';
import { startKubeLite } from '@gsp/kube-lite';
import type { KubeLite } from '@gsp/kube-lite';
import { GameServerClient } from '../../src/gameservers/client.js';
import { AGONES } from '../../src/gameservers/model.js';
import type { AgonesFleet, AgonesGameServer } from '../../src/gameservers/model.js';
import { kubeClients } from '../../src/kube/client.js';
import { CommandRunner } from '../../src/kube/exec.js';
import { Informer } from '../../src/kube/informer.js';
import type { Profile } from '../../src/profiles/types.js';
import { until } from '../helper.js';

type Tap = { teardown(fn: () => unknown): void };

/** What the game-server services are built from, over a kube-lite of their own with the namespace `games`. */
export interface Cluster {
  kube: KubeLite;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  watch: Watch;
  log: FastifyBaseLogger;
  servers: GameServerClient;
  gameServers: Informer<AgonesGameServer>;
  exec: CommandRunner;
}

/** The informer plugins/agones.ts keeps, started for one test. */
async function informerOf<T extends AgonesGameServer | AgonesFleet>(
  t: Tap,
  plural: string,
  custom: CustomObjectsApi,
  watch: Watch,
  log: FastifyBaseLogger,
): Promise<Informer<T>> {
  const informer = new Informer<T>(
    `Agones ${plural}`,
    `/apis/${AGONES.group}/${AGONES.version}/${plural}`,
    watch,
    async () => (await custom.listClusterCustomObject({ ...AGONES, plural })) as KubernetesListObject<T>,
    log,
  );
  await informer.start();
  t.teardown(() => informer.stop());
  return informer;
}

export async function cluster(t: Tap): Promise<Cluster> {
  const kube = await startKubeLite({ port: 0, stepMs: 50 });
  t.teardown(() => kube.close());
  const { core, custom, watch } = kubeClients(kube.kubeConfig, { requestTimeoutMs: 5000, watchTimeoutMs: 30_000 });
  await core.createNamespace({ body: { metadata: { name: 'games' } } });
  const log = Fastify({ logger: false }).log;
  const gameServers = await informerOf<AgonesGameServer>(t, 'gameservers', custom, watch, log);
  const exec = new CommandRunner(kube.kubeConfig, 5000);
  return { kube, core, custom, watch, log, servers: new GameServerClient(custom), gameServers, exec };
}

export async function fleetInformer(t: Tap, c: Cluster): Promise<Informer<AgonesFleet>> {
  return informerOf<AgonesFleet>(t, 'fleets', c.custom, c.watch, c.log);
}

/** A profile as the store serves it: an image, a game port, and whatever `extra` adds. */
export function profile(name: string, extra: Partial<Profile> = {}): Profile {
  return {
    name,
    image: 'example/game:1.0',
    ports: [{ name: 'game', containerPort: 7777, protocol: 'UDP' }],
    env: {},
    actions: {},
    ...extra,
  };
}

/** A bare GameServer `games/<name>` (no profile), as kubectl would make it. */
export function bare(name: string, labels: Record<string, string> = {}): AgonesGameServer {
  return { apiVersion: 'agones.dev/v1', kind: 'GameServer', metadata: { name, labels }, spec: {} };
}

/** Game server `games/<name>` as the cache has it once it is in `state`. */
export async function cachedIn(c: Cluster, name: string, state: string): Promise<AgonesGameServer> {
  return until(`${name} ${state}`, () => {
    const gs = c.gameServers.get('games', name);
    return gs?.status?.state === state ? gs : undefined;
  });
}
