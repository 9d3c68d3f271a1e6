import t from 'tap';
import { Conflict, NotFound } from '../../src/errors.js';
import { bare, cachedIn, cluster } from './cluster.js';

t.test('a game server created is read back, listed, patched and deleted', async (t) => {
  const c = await cluster(t);
  const created = await c.servers.create('games', bare('one', { team: 'red' }));
  t.equal(created.metadata?.name, 'one');
  t.equal((await c.servers.get('games', 'one')).metadata?.uid, created.metadata?.uid);
  t.same(
    (await c.servers.list()).items.map((gs) => gs.metadata?.name),
    ['one'],
  );
  const patched = await c.servers.patch('games', 'one', { metadata: { labels: { team: 'blue' } } });
  t.equal(patched.metadata?.labels?.team, 'blue');
  await c.servers.delete('games', 'one');
  // Agones shuts a deleted server down first: it is gone, or on its way.
  const after = await c.servers.get('games', 'one').catch((err: unknown) => {
    if (err instanceof NotFound) return undefined;
    throw err;
  });
  t.ok(after === undefined || after.metadata?.deletionTimestamp !== undefined, 'deleted');
});

t.test('a patch or a delete of a server that changed since it was read is 409', async (t) => {
  const c = await cluster(t);
  const read = await c.servers.create('games', bare('two'));
  await c.servers.patch('games', 'two', { metadata: { labels: { moved: 'yes' } } });
  const stale = read.metadata?.resourceVersion;
  await t.rejects(
    c.servers.patch('games', 'two', { metadata: { resourceVersion: stale, labels: { x: 'y' } } }),
    Conflict,
  );
  await t.rejects(c.servers.delete('games', 'two', { uid: read.metadata?.uid, resourceVersion: stale }), Conflict);
  await t.resolves(c.servers.get('games', 'two'), 'still there');
});

t.test('an allocation picks the Ready server carrying the labels, and says so', async (t) => {
  const c = await cluster(t);
  await c.servers.create('games', bare('ready', { pick: 'me' }));
  await cachedIn(c, 'ready', 'Ready');
  t.equal(await c.servers.allocate('games', { pick: 'nobody' }), 'UnAllocated');
  t.equal(await c.servers.allocate('games', { pick: 'me' }), 'Allocated');
  t.equal((await c.servers.get('games', 'ready')).status?.state, 'Allocated');
});
