import fp from 'fastify-plugin';
import type { KubernetesListObject } from '@kubernetes/client-node';
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

export default fp(
  async (app) => {
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
    app.decorate('agones', { gameServers, fleets, locks: new ActionLocks(app.redis) });
    await Promise.all([gameServers.start(), fleets.start()]);
    app.addHook('onClose', async () => {
      await Promise.all([gameServers.stop(), fleets.stop()]);
    });
  },
  { name: 'agones', dependencies: ['kube', 'redis'] },
);
