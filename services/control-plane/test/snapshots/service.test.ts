import t from 'tap';
import type { Test as Tap } from 'tap';
import type { AuditDetails } from '../../src/audit-target.js';
import { Conflict, NotFound } from '../../src/errors.js';
import { GameServerCreation } from '../../src/gameservers/create.js';
import { ActionLocks } from '../../src/gameservers/locks.js';
import type { Profile } from '../../src/profiles/types.js';
import type { RetentionAuditLine } from '../../src/snapshots/retention.js';
import { SnapshotService } from '../../src/snapshots/service.js';
import { bare, cachedIn, cluster, profile } from '../gameservers/cluster.js';

const STORAGE = { size: '1Gi', mountPath: '/data' };
const PROFILES = new Map<string, Profile>(
  [
    profile('world', { storage: STORAGE, snapshot: { preCommand: ['printf', 'saved'], postCommand: ['true'] } }),
    profile('stubborn', { storage: STORAGE, snapshot: { preCommand: ['false'], postCommand: ['printf', 'on'] } }),
    profile('plain'),
  ].map((p) => [p.name, p]),
);

async function setUp(t: Tap) {
  const c = await cluster(t);
  const profiles = { get: (name: string) => PROFILES.get(name), invalid: () => undefined, ready: true };
  const retained: RetentionAuditLine[] = [];
  const snapshots = new SnapshotService({
    ...c,
    locks: new ActionLocks(undefined),
    profiles,
    writeAudit: (line) => retained.push(line),
  });
  await snapshots.start();
  t.teardown(() => snapshots.stop());
  const serve = async (name: string, of: string) => {
    await new GameServerCreation({ ...c, profiles }).create(
      'games',
      { profile: of, name },
      {
        audit: () => undefined,
        log: c.log,
      },
    );
    await cachedIn(c, name, 'Ready');
  };
  const audits: AuditDetails[] = [];
  return { c, snapshots, serve, audits, audit: (details: AuditDetails) => audits.push(details) };
}

t.test("a snapshot runs the profile's hooks around the VolumeSnapshot and is listed once taken", async (t) => {
  const { snapshots, serve, audits, audit } = await setUp(t);
  await serve('w1', 'world');
  const created = await snapshots.take('games', 'w1', 'w1-first', audit);
  t.match(created, {
    namespace: 'games',
    name: 'w1-first',
    gameServer: 'w1',
    hooks: { preCommand: { exitCode: 0, stdout: 'saved' }, postCommand: { exitCode: 0 } },
  });
  t.same(audits, [{ outcome: 'created w1-first' }]);
  t.match(snapshots.ofGameServer('games', 'w1'), [{ name: 'w1-first' }]);
  t.match(snapshots.get('games', 'w1-first'), { name: 'w1-first' });
  t.match(snapshots.list('games'), [{ name: 'w1-first' }]);
  await snapshots.delete('games', 'w1-first');
  t.throws(() => snapshots.get('games', 'w1-first'), NotFound);
});

t.test('a preCommand that fails takes no snapshot; the 409 says how postCommand ended', async (t) => {
  const { snapshots, serve, audits, audit } = await setUp(t);
  await serve('s1', 'stubborn');
  await t.rejects(
    snapshots.take('games', 's1', undefined, audit),
    new Conflict('no snapshot was taken: preCommand exited with code 1; postCommand exited with code 0'),
  );
  t.same(audits, [{ outcome: 'not created, preCommand exit 1' }]);
  t.same(snapshots.list('games'), []);
});

t.test('a server without storage, or none at all, has nothing to snapshot', async (t) => {
  const { c, snapshots, serve, audit } = await setUp(t);
  await serve('p1', 'plain');
  await t.rejects(snapshots.take('games', 'p1', undefined, audit), /profile plain has no storage/);
  await c.servers.create('games', bare('kubectl-made'));
  await cachedIn(c, 'kubectl-made', 'Ready');
  await t.rejects(snapshots.take('games', 'kubectl-made', undefined, audit), /not created from a profile/);
  await t.rejects(snapshots.take('games', 'none', undefined, audit), new NotFound('game server games/none not found'));
  t.throws(() => snapshots.ofGameServer('games', 'none'), NotFound, 'a server with no snapshots and no server');
});
