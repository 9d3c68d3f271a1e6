import t from 'tap';
import { Conflict, NotFound } from '../../src/errors.js';
import { deleteGameServer } from '../../src/gameservers/delete.js';
import { bare, cachedIn, cluster } from './cluster.js';

t.test('a deleted game server is gone or going in the cache when the call returns', async (t) => {
  const c = await cluster(t);
  await c.servers.create('games', bare('one'));
  await cachedIn(c, 'one', 'Ready');
  await deleteGameServer(c.servers, c.gameServers, { namespace: 'games', name: 'one', force: false });
  const cached = c.gameServers.get('games', 'one');
  t.ok(cached === undefined || cached.metadata?.deletionTimestamp !== undefined);
});

t.test('an Allocated server is deleted only with force: players are on it', async (t) => {
  const c = await cluster(t);
  await c.servers.create('games', bare('busy', { pick: 'me' }));
  await cachedIn(c, 'busy', 'Ready');
  await c.servers.allocate('games', { pick: 'me' });
  await t.rejects(
    deleteGameServer(c.servers, c.gameServers, { namespace: 'games', name: 'busy', force: false }),
    Conflict,
  );
  t.equal((await c.servers.get('games', 'busy')).metadata?.deletionTimestamp, undefined, 'still there');
  await deleteGameServer(c.servers, c.gameServers, { namespace: 'games', name: 'busy', force: true });
});

t.test('a server that does not exist is 404 naming it', async (t) => {
  const c = await cluster(t);
  await t.rejects(
    deleteGameServer(c.servers, c.gameServers, { namespace: 'games', name: 'none', force: false }),
    new NotFound('game server games/none not found'),
  );
});
