import t from 'tap';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AGENT_PRESENCE_EVENT, enqueueEvent } from '@gsp/platform-contract';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import {
  bearer,
  build,
  JWT_SECRET,
  PLATFORM_ADMIN,
  putMember,
  redisPrefix,
  registerCluster,
  seedTenant,
  TEST_REDIS_URL,
  token,
  until,
} from './helper.js';

type Tap = { teardown(fn: () => unknown): void };

interface Received {
  id: string | undefined;
  event: string;
  data: Record<string, unknown>;
  at: number;
}

/** A client holding `GET /api/v1/events` open over real HTTP, as a browser's EventSource would. */
class StreamReader {
  readonly events: Received[] = [];
  heartbeats = 0;
  ended = false;
  private buffer = '';

  static async open(
    t: Tap,
    base: string,
    subject: string | { authorization: string },
    headers: Record<string, string> = {},
    query = '',
  ): Promise<StreamReader> {
    const auth = typeof subject === 'string' ? await bearer(subject) : subject;
    const abort = new AbortController();
    t.teardown(() => abort.abort());
    const res = await fetch(`${base}/api/v1/events${query}`, {
      headers: { ...auth, ...headers },
      signal: abort.signal,
    });
    if (res.status !== 200 || res.body === null) throw new Error(`events: ${res.status} ${await res.text()}`);
    const reader = new StreamReader();
    void reader.read(res.body);
    // The opening comment: the stream is subscribed from here on.
    await until('the stream to open', () => reader.opened || undefined, 5000);
    return reader;
  }

  opened = false;

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) !== -1) {
          this.frame(this.buffer.slice(0, end));
          this.buffer = this.buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by the test's teardown
    }
    this.ended = true;
  }

  private frame(text: string): void {
    if (text === ': gsp events') this.opened = true;
    else if (text === ': heartbeat') this.heartbeats += 1;
    if (text.startsWith(':')) return;
    const fields = new Map<string, string>();
    for (const line of text.split('\n')) {
      const colon = line.indexOf(': ');
      fields.set(line.slice(0, colon), line.slice(colon + 2));
    }
    this.events.push({
      id: fields.get('id'),
      event: fields.get('event') ?? 'message',
      data: JSON.parse(fields.get('data') ?? 'null') as Record<string, unknown>,
      at: Date.now(),
    });
  }

  named(event: string): Received[] {
    return this.events.filter((e) => e.event === event);
  }

  /** The first event matching `match` received at or after index `from`. */
  waitFor(what: string, match: (e: Received) => boolean, ms = 3000): Promise<Received> {
    return until(what, () => this.events.find(match), ms);
  }
}

const listen = async (app: FastifyInstance): Promise<string> => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
};

// Two API-server replicas on one schema and one Redis prefix, as a deployment runs them.
const prefix = redisPrefix();
const env = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, EVENTS_HEARTBEAT: '300ms' };
const { app: one, databaseUrl } = await build(t, env);
const two = await buildApp(
  loadConfig({ DATABASE_URL: databaseUrl, AUTH_JWT_SECRET: JWT_SECRET, PLATFORM_ADMINS: PLATFORM_ADMIN, ...env }),
  false,
);
t.teardown(() => two.close());
await two.ready();
const [url1, url2] = [await listen(one), await listen(two)];
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
t.teardown(() => pool.end());

const admin = await bearer(PLATFORM_ADMIN);
await seedTenant(one, 'tenant-a', { alice: 'admin', carol: 'viewer' });
await seedTenant(one, 'tenant-b', { bob: 'admin' });
const clusterA = await registerCluster(one, 'tenant-a', 'a-1');
const PLATFORM_FLAG = '/api/v1/platform/feature-flags/cli_access.enabled';
const clusterFlag = (org: string, id: string) =>
  `/api/v1/tenants/${org}/clusters/${id}/feature-flags/cli_access.enabled`;

/** The newest outbox id: the Last-Event-ID of a client that saw everything so far. */
const newestId = async (): Promise<string> =>
  (await pool.query<{ id: string }>('SELECT max(id)::text AS id FROM outbox_events')).rows[0]!.id;

/** Waits until the relay has published every committed event, so none of them reaches a stream opened next. */
const settled = (): Promise<true> =>
  until(
    'the outbox to be published',
    async () =>
      (await pool.query('SELECT 1 FROM outbox_events WHERE delivered_at IS NULL LIMIT 1')).rowCount === 0 || undefined,
  );

/** Commits an event to the outbox as the proxy does for agent presence. */
async function commitEvent(type: string, scopeKey: string, payload: object): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await enqueueEvent(client, type, scopeKey, payload);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

t.test('each change reaches exactly the streams allowed to see it, on either replica, within 1 s', async (t) => {
  await settled();
  const streams = {
    admin: await StreamReader.open(t, url1, PLATFORM_ADMIN),
    alice: await StreamReader.open(t, url2, 'alice'),
    carol: await StreamReader.open(t, url1, 'carol'),
    bob: await StreamReader.open(t, url2, 'bob'),
  };
  type Who = keyof typeof streams;
  const all = Object.keys(streams) as Who[];
  const expected = new Map<Who, string[]>(all.map((w) => [w, []]));

  /** Runs a change and waits for its event at each stream that should see it; answers the event's id. */
  async function change(what: string, allowed: Who[], run: () => Promise<unknown>, event: string): Promise<void> {
    const before = new Map(all.map((w) => [w, streams[w].events.length]));
    const started = Date.now();
    await run();
    const ids = new Set<string>();
    for (const who of allowed) {
      const got = await until(
        `${what} at ${who}`,
        () => streams[who].events.slice(before.get(who)).find((e) => e.event === event),
        3000,
      );
      t.ok(got.at - started < 1000, `${what} reached ${who} in ${got.at - started} ms`);
      ids.add(got.id!);
      expected.get(who)!.push(got.id!);
    }
    t.equal(ids.size, 1, `${what}: one event id everywhere`);
  }

  await change(
    'a platform flag write',
    all,
    () => one.inject({ method: 'PUT', url: PLATFORM_FLAG, headers: admin, payload: { value: false } }),
    'flag',
  );
  await change(
    'a cluster flag write in tenant A',
    ['admin', 'alice', 'carol'],
    async () =>
      t.equal(
        (
          await two.inject({
            method: 'PUT',
            url: clusterFlag('tenant-a', clusterA.id),
            headers: await bearer('alice'),
            payload: { value: false },
          })
        ).statusCode,
        200,
      ),
    'flag',
  );
  await change(
    'a member added to tenant A',
    ['admin', 'alice'],
    async () => t.equal((await putMember(one, 'tenant-a', 'dave', 'viewer', admin)).statusCode, 200),
    'member',
  );
  await change(
    'a cluster registered in tenant B',
    ['admin', 'bob'],
    () => registerCluster(two, 'tenant-b', 'b-1'),
    'cluster',
  );
  await change(
    'an agent of tenant A disconnecting',
    ['admin', 'alice', 'carol'],
    () =>
      commitEvent(AGENT_PRESENCE_EVENT, `cluster:${clusterA.id}`, {
        org: 'tenant-a',
        clusterId: clusterA.id,
        connected: false,
        since: null,
      }),
    'agent',
  );
  // Everyone sees this one; once it has arrived, nothing earlier is still on its way.
  await change(
    'a platform flag clear',
    all,
    () => one.inject({ method: 'DELETE', url: PLATFORM_FLAG, headers: admin }),
    'flag',
  );
  for (const who of all)
    t.same(
      streams[who].events.map((e) => e.id),
      expected.get(who),
      `${who} received exactly what it may see, in order`,
    );
  const cluster = streams.carol.named('flag')[1]!.data;
  t.match(cluster, {
    flag: 'cli_access.enabled',
    scope: { type: 'cluster', org: 'tenant-a', clusterId: clusterA.id },
    value: false,
    cause: 'request',
  });
  t.match(streams.admin.named('agent')[0]!.data, {
    org: 'tenant-a',
    clusterId: clusterA.id,
    connected: false,
    since: null,
  });
  t.match(streams.bob.named('cluster')[0]!.data, { kind: 'registered', org: 'tenant-b', name: 'b-1' });
  t.match(streams.alice.named('member')[0]!.data, { org: 'tenant-a', subject: 'dave', role: 'viewer' });
});

t.test("tenant members are not shown a platform admin's subject; platform admins are", async (t) => {
  const admin1 = await StreamReader.open(t, url1, PLATFORM_ADMIN);
  const alice = await StreamReader.open(t, url2, 'alice');
  await one.inject({ method: 'PUT', url: PLATFORM_FLAG, headers: admin, payload: { value: false } });
  await putMember(one, 'tenant-a', 'erin', 'viewer', admin);
  const flagSeen = await alice.waitFor('the platform flag event', (e) => e.event === 'flag');
  t.equal(flagSeen.data.actor, null, 'no actor on a platform event');
  t.equal(flagSeen.data.actorRole, 'platform-admin', 'but it says a platform admin did it');
  const memberSeen = await alice.waitFor('the member event', (e) => e.event === 'member');
  t.equal(memberSeen.data.actor, null, "a platform admin's member change does not name them either");
  t.equal(memberSeen.data.actorRole, 'platform-admin');
  const adminSeen = await admin1.waitFor('the platform flag event', (e) => e.event === 'flag');
  t.equal(adminSeen.data.actor, PLATFORM_ADMIN, 'a platform admin sees who');
  await one.inject({ method: 'DELETE', url: PLATFORM_FLAG, headers: admin });
});

t.test('a tenant member sees the subject of a fellow member who acted', async (t) => {
  const carol = await StreamReader.open(t, url1, 'carol');
  await registerClusterAs('alice', 'tenant-a', 'a-2');
  const seen = await carol.waitFor('the registration', (e) => e.event === 'cluster');
  t.equal(seen.data.actor, 'alice');
  t.equal(seen.data.actorRole, 'admin');
});

async function registerClusterAs(subject: string, org: string, name: string): Promise<void> {
  const res = await two.inject({
    method: 'POST',
    url: `/api/v1/tenants/${org}/clusters`,
    headers: await bearer(subject),
    payload: { name },
  });
  if (res.statusCode !== 201) throw new Error(`register: ${res.statusCode} ${res.body}`);
}

t.test('an expiry reaches every stream within 1 s of expiresAt, as the system actor', async (t) => {
  await settled();
  const streams = [await StreamReader.open(t, url1, 'bob'), await StreamReader.open(t, url2, PLATFORM_ADMIN)];
  const expiresAt = new Date(Date.now() + 1500);
  const res = await one.inject({
    method: 'PUT',
    url: PLATFORM_FLAG,
    headers: admin,
    payload: { value: false, reason: 'maintenance', expiresAt: expiresAt.toISOString() },
  });
  t.equal(res.statusCode, 200);
  for (const stream of streams) {
    const off = await stream.waitFor('the off', (e) => e.event === 'flag' && e.data.value === false);
    t.match(off.data, { reason: 'maintenance', expiresAt: expiresAt.toISOString(), cause: 'request' });
    const cleared = await stream.waitFor('the expiry', (e) => e.event === 'flag' && e.data.cause === 'expiry', 5000);
    t.match(cleared.data, { value: null, actor: 'system:expiry', actorRole: 'system' });
    t.ok(cleared.at - expiresAt.getTime() < 1000, `within 1 s of expiresAt (${cleared.at - expiresAt.getTime()} ms)`);
  }
  // Both replicas run the clearing: once everything committed is published, there was one clear.
  await settled();
  for (const stream of streams) t.equal(stream.named('flag').length, 2, 'cleared once');
});

t.test('a change made while a stream was closed is replayed after its Last-Event-ID', async (t) => {
  const resumeFrom = await newestId();
  await one.inject({ method: 'PUT', url: PLATFORM_FLAG, headers: admin, payload: { value: false } });
  await registerCluster(one, 'tenant-b', 'b-2');
  await two.inject({ method: 'DELETE', url: PLATFORM_FLAG, headers: admin });

  const alice = await StreamReader.open(t, url2, 'alice', { 'last-event-id': resumeFrom });
  await alice.waitFor('the second flag event', (e) => e.event === 'flag' && e.data.value === null);
  t.same(
    alice.events.map((e) => [e.event, e.data.value]),
    [
      ['flag', false],
      ['flag', null],
    ],
    "both flag writes, in order, and not tenant B's cluster",
  );
  t.ok(BigInt(alice.events[0]!.id!) > BigInt(resumeFrom), 'only what came after');

  const bob = await StreamReader.open(t, url1, 'bob', {}, `?lastEventId=${resumeFrom}`);
  await bob.waitFor('the second flag event', (e) => e.event === 'flag' && e.data.value === null);
  t.same(
    bob.events.map((e) => e.event),
    ['flag', 'cluster', 'flag'],
    'the query parameter resumes the same way, with what bob may see',
  );

  const live = await StreamReader.open(t, url1, 'bob', { 'last-event-id': await newestId() });
  await one.inject({ method: 'PUT', url: PLATFORM_FLAG, headers: admin, payload: { value: true } });
  await live.waitFor('the live event after an empty replay', (e) => e.event === 'flag');
  t.equal(live.events.length, 1, 'nothing replayed twice');
  await one.inject({ method: 'DELETE', url: PLATFORM_FLAG, headers: admin });
});

t.test('a Last-Event-ID older than the events kept gets event: reload, then live events', async (t) => {
  const newest = await newestId();
  // What a retention job would do: the oldest events are gone.
  await pool.query('DELETE FROM outbox_events WHERE id < $1', [newest]);
  const alice = await StreamReader.open(t, url2, 'alice', { 'last-event-id': '1' });
  const reload = await alice.waitFor('the reload', (e) => e.event === 'reload');
  t.same(reload.data, { reason: 'gap' });
  t.equal(reload.id, newest, 'it carries the id to resume from once reloaded');
  await one.inject({ method: 'PUT', url: PLATFORM_FLAG, headers: admin, payload: { value: false } });
  await alice.waitFor('a live event after the reload', (e) => e.event === 'flag');
  t.same(
    alice.events.map((e) => e.event),
    ['reload', 'flag'],
  );
  await one.inject({ method: 'DELETE', url: PLATFORM_FLAG, headers: admin });
});

t.test('a Last-Event-ID that is not an event id is a 400 naming the rule', async (t) => {
  const headers = await bearer('alice');
  for (const bad of ['abc', '-1', '1.5', '9223372036854775808', ' 7', '0x10', '1, 2']) {
    const res = await one.inject({ url: '/api/v1/events', headers: { ...headers, 'last-event-id': bad } });
    t.equal(res.statusCode, 400, `Last-Event-ID ${JSON.stringify(bad)}`);
    t.match(
      res.json().detail,
      'Last-Event-ID must be the id of an event of this stream: a whole number from 0 to 9223372036854775807',
    );
  }
  const query = await one.inject({ url: '/api/v1/events?lastEventId=x', headers });
  t.equal(query.statusCode, 400);
  t.match(query.json(), { detail: /^lastEventId must be the id/, errors: [{ in: 'query', pointer: '#/lastEventId' }] });
  t.equal((await one.inject({ url: '/api/v1/events' })).statusCode, 401, 'no token: 401');
});

t.test("removing a member closes that member's stream; reconnecting shows the new view", async (t) => {
  await putMember(one, 'tenant-a', 'frank', 'viewer', admin);
  await settled();
  // Resuming after his own addition, which must not end the stream it announced.
  const frank = await StreamReader.open(t, url2, 'frank', { 'last-event-id': await newestId() });
  const other = await StreamReader.open(t, url1, 'carol');
  const removed = await one.inject({ method: 'DELETE', url: '/api/v1/tenants/tenant-a/members/frank', headers: admin });
  t.equal(removed.statusCode, 204);
  const started = Date.now();
  await until('frank stream to end', () => frank.ended || undefined, 3000);
  t.ok(Date.now() - started < 1000, 'ended within 1 s');
  t.same(
    frank.events.map((e) => [e.event, e.data.role ?? e.data.reason]),
    [
      ['member', null],
      ['close', 'access-changed'],
    ],
    'frank is told he was removed, then why the stream ends',
  );
  const lastId = frank.events[0]!.id!;
  const again = await StreamReader.open(t, url2, 'frank', { 'last-event-id': lastId });
  await two.inject({
    method: 'PUT',
    url: clusterFlag('tenant-a', clusterA.id),
    headers: await bearer('alice'),
    payload: { value: true },
  });
  await one.inject({ method: 'PUT', url: PLATFORM_FLAG, headers: admin, payload: { value: false } });
  await again.waitFor('the platform event', (e) => e.event === 'flag');
  t.same(
    again.events.map((e) => e.data.scope),
    [{ type: 'platform' }],
    "tenant A's cluster is no longer shown",
  );
  t.notOk(other.ended, "another member's stream stays open");
  await one.inject({ method: 'DELETE', url: PLATFORM_FLAG, headers: admin });
});

t.test('the stream ends when the caller token expires', async (t) => {
  const exp = Math.floor(Date.now() / 1000) + 2;
  const carol = await StreamReader.open(t, url1, { authorization: `Bearer ${await token('carol', {}, exp)}` });
  await until('the stream to end', () => carol.ended || undefined, 5000);
  const endedAt = Date.now();
  t.ok(endedAt >= exp * 1000 - 50, 'not before exp');
  t.ok(endedAt < exp * 1000 + 1000, `within 1 s of exp (${endedAt - exp * 1000} ms)`);
  t.same(carol.events.at(-1)?.event, 'close');
  t.same(carol.events.at(-1)?.data, { reason: 'token-expired' });
});

t.test('an idle stream gets heartbeat comments', async (t) => {
  const bob = await StreamReader.open(t, url1, 'bob');
  await until('two heartbeats', () => bob.heartbeats >= 2 || undefined, 3000);
  t.pass('heartbeats arrive every EVENTS_HEARTBEAT');
});

t.test('closing a replica ends its streams with event: close', async (t) => {
  const bob = await StreamReader.open(t, url2, 'bob');
  const onOther = await StreamReader.open(t, url1, 'bob');
  await two.close();
  await until('the stream on the closed replica to end', () => bob.ended || undefined, 3000);
  t.same(bob.events.at(-1)?.data, { reason: 'shutdown' });
  t.notOk(onOther.ended, 'streams on the other replica stay open');
});
