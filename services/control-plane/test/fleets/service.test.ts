import t from 'tap';
import { NotFound } from '../../src/errors.js';
import { FleetService } from '../../src/fleets/service.js';
import { AGONES } from '../../src/gameservers/model.js';
import { until } from '../helper.js';
import { cluster, fleetInformer } from '../gameservers/cluster.js';
import type { Cluster } from '../gameservers/cluster.js';

const createFleet = (c: Cluster, name: string, replicas: number) =>
  c.custom.createNamespacedCustomObject({
    ...AGONES,
    namespace: 'games',
    plural: 'fleets',
    body: {
      apiVersion: 'agones.dev/v1',
      kind: 'Fleet',
      metadata: { name },
      spec: { replicas, template: { spec: {} } },
    },
  });

t.test('fleets are listed by name and read from the cache', async (t) => {
  const c = await cluster(t);
  const fleets = await fleetInformer(t, c);
  const service = new FleetService(c.custom, fleets);
  await createFleet(c, 'b', 0);
  await createFleet(c, 'a', 0);
  await until('both cached', () => fleets.list().length === 2);
  t.same(
    service.list().map((f) => f.name),
    ['a', 'b'],
  );
  t.match(service.get('games', 'a'), { namespace: 'games', name: 'a', replicas: 0 });
  t.throws(() => service.get('games', 'none'), new NotFound('fleet games/none not found'));
});

t.test('a fleet is scaled through its scale subresource and answered with the replicas asked', async (t) => {
  const c = await cluster(t);
  const fleets = await fleetInformer(t, c);
  const service = new FleetService(c.custom, fleets);
  await createFleet(c, 'crowd', 0);
  await until('cached', () => fleets.get('games', 'crowd'));
  t.match(await service.scale('games', 'crowd', 2), { name: 'crowd', replicas: 2 });
  t.equal(fleets.get('games', 'crowd')?.spec?.replicas, 2, 'the cache shows it when the answer comes');
  await t.rejects(service.scale('games', 'none', 1), new NotFound('fleet games/none not found'));
});
