import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import t from 'tap';
import { BadRequest, NotFound } from '../../src/errors.js';
import type { AgonesGameServer } from '../../src/gameservers/model.js';
import type { ChangeType } from '../../src/kube/informer.js';
import type { LogTarget } from '../../src/kube/logs.js';
import { GameServerLogs } from '../../src/logs/service.js';
import type { LogEnd } from '../../src/logs/follow.js';

/** The informer's view of game servers, changed by the test. */
class FakeGameServers {
  readonly objects = new Map<string, AgonesGameServer>();
  readonly listeners = new Set<(type: ChangeType, object: AgonesGameServer) => void>();
  requireReady(): void {}
  get(namespace: string, name: string): AgonesGameServer | undefined {
    return this.objects.get(`${namespace}/${name}`);
  }
  onChange(listener: (type: ChangeType, object: AgonesGameServer) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  put(name: string, uid: string, state = 'Ready'): AgonesGameServer {
    const gs: AgonesGameServer = { metadata: { namespace: 'games', name, uid }, status: { state } };
    this.objects.set(`games/${name}`, gs);
    return gs;
  }
  remove(name: string): void {
    const gs = this.objects.get(`games/${name}`);
    this.objects.delete(`games/${name}`);
    if (gs !== undefined) for (const listener of this.listeners) listener('delete', gs);
  }
}

/** Logs served as Kubernetes would: a stream per call, or the error given. */
function streamer(fail?: () => Error) {
  const opened: { target: LogTarget; source: PassThrough }[] = [];
  return {
    opened,
    async stream(target: LogTarget): Promise<IncomingMessage> {
      if (fail) throw fail();
      const source = new PassThrough();
      opened.push({ target, source });
      return source as unknown as IncomingMessage;
    },
  };
}

const ONE = { namespace: 'games', name: 'one' };

t.test("a game server's log is read from its pod's game container", async (t) => {
  const gameServers = new FakeGameServers();
  gameServers.put('one', 'u1').spec = { container: 'game' };
  const kube = streamer();
  const log = await new GameServerLogs(gameServers, kube).read(ONE, { follow: false });
  t.same(kube.opened[0]?.target, { namespace: 'games', pod: 'one', container: 'game' });
  t.equal(log.uid, 'u1');
});

t.test('an unknown game server is 404; one whose pod is gone is 409 naming its state', async (t) => {
  const gameServers = new FakeGameServers();
  const missing = new GameServerLogs(gameServers, streamer());
  await t.rejects(missing.read(ONE, { follow: false }), new NotFound('game server games/one not found'));

  gameServers.put('one', 'u1', 'Shutdown');
  const noPod = new GameServerLogs(
    gameServers,
    streamer(() => new NotFound('pods "one" not found')),
  );
  await t.rejects(noPod.read(ONE, { follow: false }), {
    statusCode: 409,
    message: 'game server games/one has no pod (it is Shutdown), so no log to read',
  });
});

t.test('a container that cannot give its log yet is 409, not a bad request', async (t) => {
  const gameServers = new FakeGameServers();
  gameServers.put('one', 'u1', 'Scheduled');
  const logs = new GameServerLogs(
    gameServers,
    streamer(() => new BadRequest('container is waiting to start')),
  );
  await t.rejects(logs.read(ONE, { follow: true }), {
    statusCode: 409,
    message: 'the log of game server games/one cannot be read now: container is waiting to start',
  });
});

t.test('a follow ends when its game server is deleted, not when another one is', async (t) => {
  const gameServers = new FakeGameServers();
  gameServers.put('one', 'u1');
  gameServers.put('two', 'u2');
  const logs = new GameServerLogs(gameServers, streamer());
  const reasons: LogEnd[] = [];
  const follow = logs.follow(await logs.read(ONE, { follow: true }), {
    events: true,
    onEnd: (reason) => reasons.push(reason),
  });
  follow.body.resume();
  gameServers.remove('two');
  t.same(reasons, []);
  gameServers.remove('one');
  t.same(reasons, ['game server deleted']);
  await new Promise((resolve) => follow.body.once('close', resolve));
  t.equal(gameServers.listeners.size, 0, 'an ended follow no longer listens');
});

t.test('endAll ends every open follow for the shutdown, and forgets them', async (t) => {
  const gameServers = new FakeGameServers();
  gameServers.put('one', 'u1');
  const logs = new GameServerLogs(gameServers, streamer());
  const reasons: LogEnd[] = [];
  const closed: Promise<unknown>[] = [];
  for (let i = 0; i < 2; i += 1) {
    const follow = logs.follow(await logs.read(ONE, { follow: true }), {
      events: false,
      onEnd: (reason) => reasons.push(reason),
    });
    follow.body.resume();
    closed.push(new Promise((resolve) => follow.body.once('close', resolve)));
  }
  logs.endAll();
  await Promise.all(closed);
  t.same(reasons, ['control plane shutting down', 'control plane shutting down']);
  logs.endAll();
  t.equal(reasons.length, 2, 'ended follows are not ended again');
});
