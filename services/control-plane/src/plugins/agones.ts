import fp from 'fastify-plugin';
import type { KubernetesListObject } from '@kubernetes/client-node';
import type { Redis } from 'ioredis';
import { Informer } from '../kube/informer.js';
import { ActionLocks } from '../gameservers/locks.js';
import { AGONES } from '../gameservers/model.js';
import type { AgonesFleet, AgonesGameServer } from '../gameservers/model.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Agones objects of every namespace, cached by list + watch; reads never wait on the cluster. */
    agones: { gameServers: Informer<AgonesGameServer>; fleets: Informer<AgonesFleet>; locks: ActionLocks };
  }
}

export interface AgonesPluginOptions {
  redis: Redis | undefined;
  redisKeyPrefix: string;
}

export default fp<AgonesPluginOptions>(
  async (app, opts) => {
    const { custom, watch } = app.kube;
    const informer = <T extends AgonesGameServer | AgonesFleet>(plural: string) =>
      new Informer<T>(
        `Agones ${plural}`,
        `/apis/${AGONES.group}/${AGONES.version}/${plural}`,
        watch,
        async () => (await custom.listClusterCustomObject({ ...AGONES, plural })) as KubernetesListObject<T>,
        app.log,
      );
    const gameServers = informer<AgonesGameServer>('gameservers');
    const fleets = informer<AgonesFleet>('fleets');
    app.decorate('agones', { gameServers, fleets, locks: new ActionLocks(opts.redis, opts.redisKeyPrefix) });
    await Promise.all([gameServers.start(), fleets.start()]);
    app.addHook('onClose', async () => {
      await Promise.all([gameServers.stop(), fleets.stop()]);
    });
  },
  { name: 'agones', dependencies: ['kube'] },
);
