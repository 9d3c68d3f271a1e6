import t from 'tap';
import type { Test as Tap } from 'tap';
import { BadRequest, NotFound } from '../../src/errors.js';
import { GameServerListing } from '../../src/gameservers/listing.js';
import { until } from '../helper.js';
import { bare, cachedIn, cluster } from './cluster.js';
import type { Cluster } from './cluster.js';

/** Servers games/b, games/a and arcade/z, the games ones Ready in the cache. */
async function three(t: Tap): Promise<Cluster> {
  const c = await cluster(t);
  await c.core.createNamespace({ body: { metadata: { name: 'arcade' } } });
  await c.servers.create('games', bare('b', { team: 'red' }));
  await c.servers.create('games', bare('a', { team: 'blue' }));
  await c.servers.create('arcade', bare('z', { team: 'red' }));
  await cachedIn(c, 'a', 'Ready');
  await cachedIn(c, 'b', 'Ready');
  return c;
}

const all = () => true;
const names = (items: { namespace: string; name: string }[]) => items.map((i) => `${i.namespace}/${i.name}`);

t.test('a list is sorted by namespace, then name, and filtered as asked', async (t) => {
  const c = await three(t);
  const listing = new GameServerListing(c.gameServers);
  t.same(names(listing.select({ visible: all })), ['arcade/z', 'games/a', 'games/b']);
  t.same(names(listing.select({ namespace: 'games', visible: all })), ['games/a', 'games/b']);
  t.same(names(listing.select({ labelSelector: 'team=red', visible: all })), ['arcade/z', 'games/b']);
  t.same(names(listing.select({ state: 'Allocated', visible: all })), []);
  t.same(names(listing.select({ visible: (ns) => ns === 'arcade' })), ['arcade/z'], 'only what the caller may see');
});

t.test('the JSON of a list is the views, joined', async (t) => {
  const c = await three(t);
  const listing = new GameServerListing(c.gameServers);
  const selected = listing.select({ namespace: 'games', visible: all });
  t.same(JSON.parse(listing.json(selected).toString()), selected);
  t.same(JSON.parse(listing.everything().toString()), listing.select({ visible: all }));
});

t.test('everything is built once until the watch changes something', async (t) => {
  const c = await three(t);
  const listing = new GameServerListing(c.gameServers);
  const first = listing.everything();
  t.equal(listing.everything(), first, 'the same bytes');
  const version = c.gameServers.version;
  await c.servers.patch('games', 'a', { metadata: { labels: { team: 'green' } } });
  await until('the watch saw the change', () => c.gameServers.version > version);
  t.not(listing.everything(), first, 'rebuilt');
});

t.test('a bad selector is 400; an unknown server is 404', async (t) => {
  const c = await three(t);
  const listing = new GameServerListing(c.gameServers);
  t.throws(() => listing.select({ labelSelector: 'a in (b', visible: all }), BadRequest);
  t.throws(() => listing.cached('games', 'none'), new NotFound('game server games/none not found'));
  t.equal(listing.cached('games', 'a').metadata?.name, 'a');
});
