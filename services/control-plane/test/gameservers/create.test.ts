import t from 'tap';
import { InvalidRequestError } from '@gsp/service-kit';
import type { AuditDetails } from '../../src/audit-target.js';
import { Conflict, Unprocessable } from '../../src/errors.js';
import { GameServerCreation } from '../../src/gameservers/create.js';
import type { InvalidProfile, Profile } from '../../src/profiles/types.js';
import { cluster, profile } from './cluster.js';
import type { Cluster } from './cluster.js';

const STORED = profile('stored', { storage: { size: '1Gi', mountPath: '/data' } });
const BROKEN: InvalidProfile = {
  name: 'broken',
  configMap: 'gsp-profile-broken',
  errors: [{ pointer: '/image', message: 'must be a string' }],
};

/** A profile store holding `profiles` and the one invalid profile BROKEN. */
const store = (...profiles: Profile[]) => ({
  get: (name: string) => profiles.find((p) => p.name === name),
  invalid: (name: string) => (name === BROKEN.name ? BROKEN : undefined),
});

function creation(c: Cluster, ...profiles: Profile[]) {
  const audits: AuditDetails[] = [];
  const service = new GameServerCreation({ ...c, profiles: store(...profiles) });
  const creator = { audit: (details: AuditDetails) => audits.push(details), log: c.log };
  return { service, creator, audits };
}

t.test('a game server is made from its profile and answered as the cache shows it', async (t) => {
  const c = await cluster(t);
  const { service, creator, audits } = creation(c, profile('arena'));
  const created = await service.create('games', { profile: 'arena', name: 'one', labels: { team: 'red' } }, creator);
  t.match(created, { namespace: 'games', name: 'one', profile: 'arena', labels: { team: 'red' } });
  t.ok(c.gameServers.get('games', 'one'), 'the cache has it when the answer comes');
  t.same(audits, [{ target: 'games/one' }]);
});

t.test('without a name, the profile name and a random suffix', async (t) => {
  const c = await cluster(t);
  const { service, creator } = creation(c, profile('arena'));
  const created = await service.create('games', { profile: 'arena' }, creator);
  t.match(created.name, /^arena-[a-z0-9]{5}$/);
});

t.test('an unknown or invalid profile is 422 naming what is wrong; a reserved label is 400', async (t) => {
  const c = await cluster(t);
  const { service, creator, audits } = creation(c, profile('arena'));
  await t.rejects(service.create('games', { profile: 'nope' }, creator), new Unprocessable('unknown profile nope'));
  await t.rejects(
    service.create('games', { profile: 'broken' }, creator),
    new Unprocessable('profile broken is invalid (ConfigMap gsp-profile-broken): /image must be a string'),
  );
  await t.rejects(
    service.create('games', { profile: 'arena', labels: { 'gsp.dev/profile': 'x' } }, creator),
    InvalidRequestError,
  );
  t.same(audits, [], 'nothing was acted on');
  t.same(c.gameServers.list(), []);
});

t.test('a server with storage gets its claim, owned by it', async (t) => {
  const c = await cluster(t);
  const { service, creator } = creation(c, STORED);
  await service.create('games', { profile: 'stored', name: 'kept' }, creator);
  const claim = await c.core.readNamespacedPersistentVolumeClaim({ namespace: 'games', name: 'kept-data' });
  t.equal(claim.metadata?.ownerReferences?.[0]?.name, 'kept');
});

t.test('a claim that cannot be made takes the game server back, and the error is the answer', async (t) => {
  const c = await cluster(t);
  const { service, creator } = creation(c, STORED);
  // The claim's name is taken: creating it is refused.
  await c.core.createNamespacedPersistentVolumeClaim({
    namespace: 'games',
    body: {
      metadata: { name: 'taken-data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  await t.rejects(service.create('games', { profile: 'stored', name: 'taken' }, creator), Conflict);
  const left = await c.servers.get('games', 'taken').catch(() => undefined);
  t.ok(left === undefined || left.metadata?.deletionTimestamp !== undefined, 'the game server is removed');
});

t.test('a snapshot that does not exist is 422 before anything is created', async (t) => {
  const c = await cluster(t);
  const { service, creator, audits } = creation(c, STORED);
  await t.rejects(
    service.create('games', { profile: 'stored', name: 'restored', fromSnapshot: 'missing' }, creator),
    new Unprocessable('unknown snapshot games/missing'),
  );
  t.same(audits, [{ target: 'games/restored' }], 'the audit line names the server it was for');
  await t.rejects(c.servers.get('games', 'restored'));
});
