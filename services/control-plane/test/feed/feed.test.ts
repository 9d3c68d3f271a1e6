import http from 'node:http';
import t from 'tap';
import type { Test } from 'tap';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeLite } from '@gsp/kube-lite';
import { GameServerFeed } from '../../src/feed/hub.js';
import { GameServerListing } from '../../src/gameservers/listing.js';
import type { Principal } from '../../src/auth/principal.js';
import type { BuildOptions } from '../../src/app.js';
import {
  BASIC_ADMIN,
  build,
  createBareGameServer,
  createKey,
  listen,
  LogCapture,
  rolesFile,
  startKube,
  until,
} from '../helper.js';

const ROLES = `roles:
  games-ops:
    permissions:
      - resource: "*"
        verbs: ["*"]
        namespaces: [games]
`;
const FEED = '/api/v1/events/gameservers';

interface GameServerItem {
  namespace: string;
  name: string;
  state: string;
  labels: Record<string, string>;
}
interface FeedEvent {
  event: string;
  data: { items?: GameServerItem[]; type?: string; item?: GameServerItem; reason?: string };
}

/** A feed read over a real connection, its events parsed as they arrive. */
class FeedClient {
  readonly events: FeedEvent[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  ended = false;
  private request: http.ClientRequest | undefined;
  private response: http.IncomingMessage | undefined;
  private text = '';

  static open(url: string, headers: Record<string, string>, options: { paused?: boolean } = {}): Promise<FeedClient> {
    const client = new FeedClient();
    return new Promise((resolve, reject) => {
      client.request = http.get(`${url}${FEED}`, { headers, agent: false }, (res) => {
        client.status = res.statusCode ?? 0;
        client.headers = res.headers;
        client.response = res;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => client.take(chunk));
        res.on('close', () => (client.ended = true));
        if (options.paused) res.pause();
        resolve(client);
      });
      client.request.on('error', reject);
    });
  }

  resume(): void {
    this.response?.resume();
  }

  close(): void {
    this.request?.destroy();
  }

  /** The first event after `from` that `match` accepts, waited for up to `ms`. */
  next(what: string, match: (e: FeedEvent) => boolean, from = 0, ms = 5000): Promise<FeedEvent> {
    return until(what, () => this.events.slice(from).find(match), ms);
  }

  private take(chunk: string): void {
    this.text += chunk;
    const frames = this.text.split('\n\n');
    this.text = frames.pop() ?? '';
    for (const frame of frames) {
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (event !== undefined && data !== undefined)
        this.events.push({ event, data: JSON.parse(data) as FeedEvent['data'] });
    }
  }
}

const gameServers = (kube: KubeLite) => kube.kubeConfig.makeApiClient(CustomObjectsApi);
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const ref = (namespace: string, name: string) => ({
  group: 'agones.dev',
  version: 'v1',
  namespace,
  plural: 'gameservers',
  name,
});

/** As the SDK sidecar writes it (Agones' GameServer has no status subresource: the object is patched). */
function patchStatus(kube: KubeLite, namespace: string, name: string, status: object) {
  return gameServers(kube).patchNamespacedCustomObject({ ...ref(namespace, name), body: { status } }, MERGE);
}

function patchLabels(kube: KubeLite, namespace: string, name: string, labels: Record<string, string>) {
  return gameServers(kube).patchNamespacedCustomObject(
    { ...ref(namespace, name), body: { metadata: { labels } } },
    MERGE,
  );
}

/** kube-lite with namespaces games and other, a Ready game server in each, and a control plane over it. */
async function setUp(t: Test, options: BuildOptions = {}) {
  const kube = await startKube(t);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  for (const namespace of ['games', 'other']) {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await createBareGameServer(kube, namespace, `gs-${namespace}`);
  }
  const { app, audit } = await build(t, kube, { RBAC_ROLES_FILE: rolesFile(ROLES) }, options);
  await until('both game servers Ready', async () => {
    const res = await app.inject({ url: '/api/v1/gameservers', headers: BASIC_ADMIN });
    const items = res.statusCode === 200 ? (res.json() as GameServerItem[]) : [];
    return items.length === 2 && items.every((i) => i.state === 'Ready');
  });
  const url = await listen(app);
  const feeds: FeedClient[] = [];
  t.teardown(() => feeds.forEach((f) => f.close()));
  const open = async (headers: Record<string, string>, options?: { paused?: boolean }) => {
    const feed = await FeedClient.open(url, headers, options);
    feeds.push(feed);
    return feed;
  };
  return { kube, app, audit, url, open };
}

const names = (e: FeedEvent) => (e.data.items ?? []).map((i) => `${i.namespace}/${i.name}`);

t.test('the feed starts with a snapshot of the namespaces the caller may list', async (t) => {
  const { app, open } = await setUp(t);
  const limited = await open({ 'x-api-key': await createKey(app, 'games-only', 'games-ops') });
  t.equal(limited.status, 200);
  t.match(limited.headers['content-type'], /^text\/event-stream/);
  t.equal(limited.headers['cache-control'], 'no-store');
  const first = await limited.next('the snapshot', () => true);
  t.equal(first.event, 'snapshot', 'the first event is the snapshot');
  t.same(names(first), ['games/gs-games']);
  t.match(first.data.items?.[0], { namespace: 'games', name: 'gs-games', state: 'Ready', labels: {} });

  const admin = await open(BASIC_ADMIN);
  t.same(names(await admin.next('the snapshot', () => true)), ['games/gs-games', 'other/gs-other']);
});

t.test('a status change arrives as a change within a second; one in another namespace never does', async (t) => {
  const { kube, app, open } = await setUp(t);
  const limited = await open({ 'x-api-key': await createKey(app, 'games-only', 'games-ops') });
  const admin = await open(BASIC_ADMIN);
  await limited.next('the snapshot', (e) => e.event === 'snapshot');
  await admin.next('the snapshot', (e) => e.event === 'snapshot');

  await patchStatus(kube, 'other', 'gs-other', { state: 'Reserved' });
  const elsewhere = await admin.next('the change in other', (e) => e.data.item?.name === 'gs-other', 0, 1000);
  t.match(elsewhere.data, { type: 'modified', item: { namespace: 'other', state: 'Reserved' } });

  const started = Date.now();
  await patchStatus(kube, 'games', 'gs-games', { state: 'Reserved' });
  const change = await limited.next('the change in games', (e) => e.event === 'change', 0, 1000);
  t.ok(Date.now() - started < 1000, `arrived in ${Date.now() - started} ms`);
  t.match(change.data, { type: 'modified', item: { namespace: 'games', name: 'gs-games', state: 'Reserved' } });
  t.notOk(
    limited.events.some((e) => e.data.item?.namespace === 'other'),
    'the namespace-limited feed never saw the change in other',
  );
});

t.test('a deleted game server arrives as deleted', async (t) => {
  const { kube, open } = await setUp(t);
  const admin = await open(BASIC_ADMIN);
  await admin.next('the snapshot', (e) => e.event === 'snapshot');
  await gameServers(kube).deleteNamespacedCustomObject(ref('games', 'gs-games'));
  const deleted = await admin.next('the deletion', (e) => e.data.type === 'deleted');
  t.match(deleted.data.item, { namespace: 'games', name: 'gs-games' });
});

t.test('a viewer may open the feed; revoking its API key closes it with the reason within a second', async (t) => {
  const { app, audit, open } = await setUp(t);
  const viewer = await open({ 'x-api-key': await createKey(app, 'watcher', 'viewer') });
  t.equal(viewer.status, 200);
  await viewer.next('the snapshot', (e) => e.event === 'snapshot');
  const started = Date.now();
  const revoked = await app.inject({ method: 'DELETE', url: '/api/v1/apikeys/watcher', headers: BASIC_ADMIN });
  t.equal(revoked.statusCode, 204, revoked.body);
  const close = await viewer.next('the close', (e) => e.event === 'close', 0, 1000);
  t.ok(Date.now() - started < 1000, `closed in ${Date.now() - started} ms`);
  t.same(close.data, { reason: 'the API key was revoked' });
  await until('the stream to end', () => viewer.ended);
  const lines = await until('the audit line', () => {
    const found = audit.lines().filter((l) => l.path === FEED && l.user === 'watcher');
    return found.length > 0 ? found : undefined;
  });
  t.equal(lines.length, 1, 'one audit line for the request');
  t.match(lines[0], { role: 'viewer', method: 'GET', outcome: 'the API key was revoked' });
});

t.test("signing out of the panel closes the feed opened with the session's cookie", async (t) => {
  const { app, open } = await setUp(t);
  const key = await createKey(app, 'panel-user', 'viewer');
  const signIn = await app.inject({
    method: 'POST',
    url: '/panel/auth/sign-in',
    headers: { 'x-gsp-panel': '1' },
    payload: { method: 'apikey', key },
  });
  t.equal(signIn.statusCode, 204, signIn.body);
  const cookie = String(signIn.headers['set-cookie']).split(';')[0] as string;
  const feed = await open({ cookie });
  t.equal(feed.status, 200);
  await feed.next('the snapshot', (e) => e.event === 'snapshot');
  const out = await app.inject({ method: 'POST', url: '/panel/auth/logout', headers: { cookie, 'x-gsp-panel': '1' } });
  t.equal(out.statusCode, 204, out.body);
  t.same((await feed.next('the close', (e) => e.event === 'close', 0, 1000)).data, {
    reason: 'the panel session has ended',
  });
});

t.test('a client closing its feed is how a feed ends: no warning and no "closed prematurely" in the log', async (t) => {
  const log = new LogCapture();
  const { app, audit, open } = await setUp(t, { logger: { level: 'info', stream: log } });
  const feed = await open(BASIC_ADMIN);
  await feed.next('the snapshot', (e) => e.event === 'snapshot');
  feed.close();
  const line = await until('the feed to be audited', () =>
    audit.lines().find((l) => l.path === FEED && l.status === 499),
  );
  t.equal(line.outcome, 'client went', 'its audit line says how it ended');
  // Closed, the app has handled every event of the connection: anything it had to say about the close is said.
  await app.close();
  t.notMatch(log.text, /prematurely/, 'not "stream closed prematurely"');
  t.notMatch(log.text, /"level":(4|5|6)\d/, 'no warning or error');
});

t.test('an unauthenticated caller gets a 401 problem', async (t) => {
  const { open } = await setUp(t);
  const anonymous = await open({});
  t.equal(anonymous.status, 401);
  t.match(anonymous.headers['content-type'], /^application\/problem\+json/);
});

t.test('the feed closes with the reason when the control plane shuts down', async (t) => {
  const { app, open } = await setUp(t);
  const admin = await open(BASIC_ADMIN);
  await admin.next('the snapshot', (e) => e.event === 'snapshot');
  await app.close();
  t.same((await admin.next('the close', (e) => e.event === 'close')).data, {
    reason: 'the control plane is shutting down',
  });
});

t.test('a reader that stops reading is cut once its backlog passes the bound', async (t) => {
  const { kube, open } = await setUp(t);
  // Large frames (a game server with 500 labels, about 60 KB a change), so the backlog outgrows
  // what the kernel's socket buffers take (about 4 MB on loopback) plus the feed's bound (1 MiB).
  const labels = Object.fromEntries(
    Array.from({ length: 500 }, (_, i) => [`bulk.example.com/label-${i}`, 'x'.repeat(60)]),
  );
  await patchLabels(kube, 'games', 'gs-games', labels);
  const slow = await open(BASIC_ADMIN, { paused: true });
  const patches = 150;
  // Five at a time: the cut stream's last bytes wait 5 s for the reader, and the patches after the cut must not
  // outlast that.
  for (let i = 0; i < patches; i += 5)
    await Promise.all(
      [0, 1, 2, 3, 4].map((j) => patchLabels(kube, 'games', 'gs-games', { 'bulk.example.com/round': `r${i + j}` })),
    );
  slow.resume();
  const close = await slow.next('the close', (e) => e.event === 'close', 0, 10_000);
  t.same(close.data, { reason: 'the client fell too far behind; reconnect for a new snapshot' });
  await until('the stream to end', () => slow.ended);
  const changes = slow.events.filter((e) => e.event === 'change').length;
  t.ok(changes < patches, `${changes} of ${patches} changes were queued before it was cut`);
});

t.test(
  'a quiet feed gets keep-alive comments, and ends when the credential expires or the panel session ends',
  async (t) => {
    const kube = await startKube(t);
    const { app } = await build(t, kube);
    const ended = new Set<(hash: string) => void>();
    const feed = new GameServerFeed({
      gameServers: app.agones.gameServers,
      listing: new GameServerListing(app.agones.gameServers),
      apikeys: app.apikeys,
      onSessionEnded: (listener) => {
        ended.add(listener);
        return () => ended.delete(listener);
      },
      keepAliveMs: 20,
    });
    t.teardown(() => feed.stop());
    const principal: Principal = { userId: 'u', username: 'u', role: 'viewer', method: 'oidc' };
    const reasons: string[] = [];
    const open = (p: Principal) => {
      const stream = feed.open({
        principal: p,
        visible: 'all',
        queuedInResponse: () => 0,
        onEnd: (r) => reasons.push(r),
      });
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      return () => text;
    };
    const expiring = open({ ...principal, expiresAt: Date.now() + 200 });
    await until('a keep-alive comment', () => expiring().includes(': keep-alive\n\n'));
    await until('the expiry', () => expiring().includes('event: close'));
    t.match(
      expiring(),
      new RegExp(
        '^event: snapshot\\ndata: \\{"items":\\[\\]\\}\\n\\n[^]*' +
          'event: close\\ndata: \\{"reason":"the credential has expired"\\}\\n\\n$',
      ),
    );

    const signedIn = open({ ...principal, sessionHash: 'abc' });
    for (const listener of ended) listener('other');
    t.notOk(signedIn().includes('event: close'), "another session's end does not end it");
    for (const listener of ended) listener('abc');
    await until('the end of the session', () => signedIn().includes('event: close'));
    t.match(signedIn(), /event: close\ndata: \{"reason":"the panel session has ended"\}\n\n$/);
    t.same(reasons, ['the credential has expired', 'the panel session has ended']);
    t.equal(feed.size, 0);
  },
);
