import t from 'tap';
import { BadRequest, Conflict, Forbidden, NotFound } from '../../src/errors.js';
import { planAction } from '../../src/actions/plan.js';
import type { ActionContext } from '../../src/actions/request.js';
import { GameServerCreation } from '../../src/gameservers/create.js';
import type { AgonesGameServer } from '../../src/gameservers/model.js';
import type { Profile } from '../../src/profiles/types.js';
import { bare, cachedIn, cluster, profile } from '../gameservers/cluster.js';
import type { Cluster } from '../gameservers/cluster.js';

const ARENA = profile('arena', {
  restartCommand: ['true'],
  actions: { say: { command: ['printf', '[%s]\\n'], timeoutSeconds: 5 } },
});
const STORED = profile('stored', { storage: { size: '1Gi', mountPath: '/data' } });
const PROFILES = new Map([ARENA, STORED].map((p) => [p.name, p]));
const ANYONE = { mayDelete: true };

const context = (c: Cluster): ActionContext => ({ ...c, profile: (name) => PROFILES.get(name) });

/** Game server games/<name> of `of`, Ready in the cache. */
async function ready(c: Cluster, name: string, of: Profile = ARENA): Promise<AgonesGameServer> {
  const profiles = { get: (n: string) => PROFILES.get(n), invalid: () => undefined };
  await new GameServerCreation({ ...c, profiles }).create(
    'games',
    { profile: of.name, name },
    {
      audit: () => undefined,
      log: c.log,
    },
  );
  return cachedIn(c, name, 'Ready');
}

t.test("each built-in action is found by name; any other name is the profile's or 404", async (t) => {
  const c = await cluster(t);
  const gs = await ready(c, 'one');
  for (const action of ['allocate', 'reserve', 'shutdown', 'restart']) {
    const args = action === 'reserve' ? ['30s'] : [];
    t.equal(planAction(context(c), gs, action, args, ANYONE).name, action);
  }
  t.equal(planAction(context(c), gs, 'say', ['hi'], ANYONE).timeoutMs, 5000, "the profile's timeout");
  for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    t.throws(() => planAction(context(c), gs, inherited, [], ANYONE), NotFound, inherited);
  }
  t.throws(
    () => planAction(context(c), gs, 'dance', [], ANYONE),
    new NotFound(
      'no action dance for game server games/one: ' +
        'built-in actions are allocate, reserve, restart, shutdown; profile arena defines say',
    ),
  );
});

t.test('args are checked before anything runs', async (t) => {
  const c = await cluster(t);
  const gs = await ready(c, 'args');
  t.throws(
    () => planAction(context(c), gs, 'allocate', ['x'], ANYONE),
    new BadRequest('action allocate takes no args'),
  );
  t.throws(() => planAction(context(c), gs, 'reserve', [], ANYONE), BadRequest);
  t.throws(() => planAction(context(c), gs, 'reserve', ['25h'], ANYONE), BadRequest);
  t.throws(() => planAction(context(c), gs, 'shutdown', ['now'], ANYONE), BadRequest);
});

t.test('reserve moves a Ready server to Reserved and answers with what the cache shows', async (t) => {
  const c = await cluster(t);
  const gs = await ready(c, 'held');
  const result = await planAction(context(c), gs, 'reserve', ['0'], ANYONE).run();
  t.match(result, { action: 'reserve', gameServer: { name: 'held', state: 'Reserved' } });
  t.equal(c.gameServers.get('games', 'held')?.status?.state, 'Reserved');
  t.throws(() => planAction(context(c), c.gameServers.get('games', 'held')!, 'allocate', [], ANYONE), Conflict);
});

t.test('allocate goes through Agones and answers Allocated', async (t) => {
  const c = await cluster(t);
  const gs = await ready(c, 'match');
  const planned = planAction(context(c), gs, 'allocate', [], ANYONE);
  const result = await planned.run();
  t.match(result, { action: 'allocate', gameServer: { state: 'Allocated' } });
  t.equal(planned.outcome(result), 'Allocated');
});

t.test('shutting down a server with storage needs the right to delete; an Allocated one needs force', async (t) => {
  const c = await cluster(t);
  const stored = await ready(c, 'stored', STORED);
  t.throws(() => planAction(context(c), stored, 'shutdown', [], { mayDelete: false }), Forbidden);
  t.ok(planAction(context(c), stored, 'shutdown', [], ANYONE));
  const gs = await ready(c, 'playing');
  await planAction(context(c), gs, 'allocate', [], ANYONE).run();
  const allocated = await cachedIn(c, 'playing', 'Allocated');
  t.throws(() => planAction(context(c), allocated, 'shutdown', [], ANYONE), Conflict);
  const result = await planAction(context(c), allocated, 'shutdown', ['force'], ANYONE).run();
  t.match(result, { gameServer: { state: 'Shutdown' } });
});

t.test('restart runs the restartCommand; a server without one is 409 saying why', async (t) => {
  const c = await cluster(t);
  const gs = await ready(c, 'again');
  const planned = planAction(context(c), gs, 'restart', [], ANYONE);
  const result = await planned.run();
  t.match(result, { action: 'restart', exitCode: 0 });
  t.equal(planned.outcome(result), 'exit 0');
  await c.servers.create('games', bare('plain'));
  const plain = await cachedIn(c, 'plain', 'Ready');
  t.throws(() => planAction(context(c), plain, 'restart', [], ANYONE), /not created from a profile/);
});

t.test("a profile action runs its command with the caller's args as argv elements", async (t) => {
  const c = await cluster(t);
  const gs = await ready(c, 'cmd');
  const result = await planAction(context(c), gs, 'say', ['a b', '$(id)'], ANYONE).run();
  t.match(result, { action: 'say', exitCode: 0, stdout: '[a b]\n[$(id)]\n' });
});
