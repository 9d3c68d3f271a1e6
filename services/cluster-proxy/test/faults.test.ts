import t from 'tap';
import type { Test } from 'tap';
import { bodyOf, kubectl, redisPrefix, responseTo, startStack, TEST_REDIS_URL, until } from './stack.js';
import type { Stack, StackOptions } from './stack.js';
import { POD, untilPodRuns, within } from './workload.js';
import { startRelay } from '@gsp/service-kit/testing/relay';
import type { Relay } from '@gsp/service-kit/testing/relay';

/**
 * Faults between the proxy and its stores (PostgreSQL, Redis) and between the agent and its
 * Kubernetes API, through a relay that cuts or stalls the connection: every kubectl request is
 * answered within a bound, never with a 500, and everything recovers without a restart.
 */

const POLICY = 'CLI access is disabled by platform policy';
/** A stalled store costs a request at most two 2 s reads (the cluster, then the membership): about 4.1 s. */
const STORE_BOUND_MS = 6000;
/** The agents' KUBE_REQUEST_TIMEOUT in these tests. */
const KUBE_TIMEOUT_MS = 1000;
const NAMESPACES = '/api/v1/namespaces';

interface Answer {
  status: number;
  ms: number;
  body: string;
}

/** GETs `path` through the proxy; resolves with the status, the body and how long the answer took. */
async function timed(stack: Stack, id: string, token: string, path = NAMESPACES): Promise<Answer> {
  const startedAt = Date.now();
  const res = await responseTo(stack.proxyRequest(id, path, token));
  const body = bodyOf(res);
  await new Promise((resolve) => res.on('end', resolve));
  return { status: res.statusCode ?? 0, ms: Date.now() - startedAt, body: body() };
}

/** Polls a GET through the proxy until it answers `status`; resolves with that answer. */
function answers(stack: Stack, id: string, token: string, status: number, ms = 10_000): Promise<Answer> {
  return until(
    `a ${status}`,
    async () => {
      const res = await timed(stack, id, token);
      return res.status === status ? res : undefined;
    },
    ms,
    20,
  );
}

/** Sends requests, one after another and `parallel` at a time, for `ms`; resolves with every answer. */
async function load(stack: Stack, id: string, token: string, ms: number, parallel = 4): Promise<Answer[]> {
  const all: Answer[] = [];
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < end) all.push(await timed(stack, id, token));
    }),
  );
  return all;
}

const slowest = (all: Answer[]) => Math.max(...all.map((a) => a.ms));
const statuses = (all: Answer[]) => [...new Set(all.map((a) => a.status))].sort();

/** A stack whose proxy reaches its database through a relay; resolves once the agent is connected. */
async function stackWithDatabaseRelay(t: Test, proxyEnv: Record<string, string> = {}) {
  let db: Relay | undefined;
  const stack = await startStack(t, { proxyEnv, proxyDatabaseUrl: async (url) => (db = await startRelay(t, url)).url });
  const [a] = stack.clusters as [Stack['clusters'][0]];
  await until('the agent to connect', () => (a.agent.connected ? true : undefined));
  return { stack, a, db: db as Relay, token: await stack.proxyToken(a.id) };
}

t.test("the proxy's database", async (t) => {
  t.test(
    'stalled: best_effort answers from its caches within the bound, and reads changes once it is back',
    async (t) => {
      const { stack, a, db, token } = await stackWithDatabaseRelay(t, { SERVICE_CACHE_FLAGS_TTL: '300ms' });
      t.equal((await timed(stack, a.id, token)).status, 200, 'the caches are warm');

      db.stall();
      const during = await load(stack, a.id, token, 4000, 8);
      t.same(statuses(during), [200], `all ${during.length} requests answered from the caches`);
      t.ok(slowest(during) < STORE_BOUND_MS, `the slowest within ${STORE_BOUND_MS} ms (${slowest(during)} ms)`);
      t.ok(a.agent.connected, 'the tunnel stays up');

      // Turned off meanwhile through the API server (whose own database link is fine).
      t.equal((await stack.setSwitch(false, a.id)).statusCode, 200);
      // The connections the stall caught stay dead, as after a failover: the pool must let them go.
      db.restore();
      const restoredAt = Date.now();
      const refused = await answers(stack, a.id, token, 410);
      t.comment(`the change was read ${Date.now() - restoredAt} ms after the database came back`);
      t.match(refused.body, `${POLICY} for cluster ${a.id}: set by a platform admin for this cluster`);
      const closing = Date.now();
      t.ok(
        await within(
          5000,
          stack.proxy.close().then(() => true),
        ),
        'it still shuts down: no query hangs on a dead link',
      );
      t.comment(`closed in ${Date.now() - closing} ms`);
    },
  );

  t.test('stalled: strict refuses with 410 within the bound and serves again once it is back', async (t) => {
    const strict = { SERVICE_CLI_ACCESS_STALE_MODE: 'strict', SERVICE_CACHE_FLAGS_TTL: '300ms' };
    const { stack, a, db, token } = await stackWithDatabaseRelay(t, strict);
    const kubeconfig = await a.kubeconfig();
    t.equal((await timed(stack, a.id, token)).status, 200);

    db.stall();
    const during = await load(stack, a.id, token, 3000);
    // 200 from the caches until they expire, then the strict refusal (410, or 503 for the membership).
    t.ok(
      during.every((res) => [200, 410, 503].includes(res.status)),
      `no 500 (${statuses(during).join(', ')})`,
    );
    t.ok(slowest(during) < STORE_BOUND_MS, `the slowest within ${STORE_BOUND_MS} ms (${slowest(during)} ms)`);
    const refused = await kubectl(kubeconfig, ['get', 'namespaces']);
    t.match(
      refused.stderr,
      `${POLICY} for cluster ${a.id}: the flag store cannot be read and the proxy runs in strict mode`,
    );

    db.restore();
    await until('the agent to reconnect', () => (a.agent.connected ? true : undefined), 10_000);
    await answers(stack, a.id, token, 200);
  });

  t.test('stalled before anything was cached: 503 within the bound, then served once it is back', async (t) => {
    const { stack, a, db, token } = await stackWithDatabaseRelay(t);
    db.stall();
    const res = await timed(stack, a.id, token);
    t.equal(res.status, 503);
    t.match(JSON.parse(res.body), {
      kind: 'Status',
      code: 503,
      message: `access to cluster ${a.id} cannot be checked right now`,
    });
    t.ok(res.ms < STORE_BOUND_MS, `answered in ${res.ms} ms`);
    db.restore();
    await answers(stack, a.id, token, 200);
  });

  t.test('cut: best_effort serves from its caches, and recovers once it is back', async (t) => {
    const { stack, a, db, token } = await stackWithDatabaseRelay(t, { SERVICE_CACHE_FLAGS_TTL: '300ms' });
    t.equal((await timed(stack, a.id, token)).status, 200);
    db.cut();
    const during = await load(stack, a.id, token, 2000);
    t.same(statuses(during), [200], `all ${during.length} requests answered`);
    t.ok(slowest(during) < STORE_BOUND_MS, `the slowest within ${STORE_BOUND_MS} ms (${slowest(during)} ms)`);
    t.equal((await stack.setSwitch(false, a.id)).statusCode, 200);
    db.restore();
    await answers(stack, a.id, token, 410);
  });
});

t.test("the proxy's Redis", async (t) => {
  for (const fault of ['stall', 'cut'] as const) {
    t.test(`${fault}: kubectl is served, changes arrive within the TTL, and by event once it is back`, async (t) => {
      const prefix = redisPrefix();
      const redis = await startRelay(t, TEST_REDIS_URL);
      const stack = await startStack(t, {
        apiEnv: { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix },
        proxyEnv: {
          REDIS_URL: redis.url,
          REDIS_KEY_PREFIX: prefix,
          SERVICE_CACHE_FLAGS_TTL: '5s',
          TUNNEL_WATCH_INTERVAL: '200ms',
        },
      });
      const [a] = stack.clusters as [Stack['clusters'][0]];
      await until('the agent to connect', () => (a.agent.connected ? true : undefined));
      const token = await stack.proxyToken(a.id);
      t.equal((await timed(stack, a.id, token)).status, 200);

      redis[fault]();
      const during = await load(stack, a.id, token, 1000);
      t.same(statuses(during), [200], `all ${during.length} requests answered`);
      t.ok(slowest(during) < 1000, `none waits on Redis (slowest ${slowest(during)} ms)`);

      t.equal((await stack.setSwitch(false, a.id)).statusCode, 200);
      const offAt = Date.now();
      await answers(stack, a.id, token, 410, 8000);
      t.comment(
        `refused ${Date.now() - offAt} ms after the change, ` +
          `with Redis ${fault === 'stall' ? 'stalled' : 'cut'} (TTL 5 s)`,
      );

      // A healed subscriber hears the next event; a cut one reconnects (within 2 s) and then drops its caches.
      if (fault === 'stall') redis.heal();
      else redis.restore();
      t.equal((await stack.setSwitch(null, a.id)).statusCode, 200);
      const onAt = Date.now();
      await until('the agent to reconnect', () => (a.agent.connected ? true : undefined), 5000);
      await answers(stack, a.id, token, 200, 5000);
      const ms = Date.now() - onAt;
      t.ok(ms < 4000, `served again ${ms} ms after the switch came back on, sooner than the 5 s TTL`);
    });
  }
});

t.test("the agent's Kubernetes API", async (t) => {
  let kube: Relay | undefined;
  const options: StackOptions = {
    agentKubeUrl: async (url) => (kube = await startRelay(t, url)).url,
    kubeRequestTimeoutMs: KUBE_TIMEOUT_MS,
  };
  const stack = await startStack(t, options);
  const [a] = stack.clusters as [Stack['clusters'][0]];
  await until('the agent to connect', () => (a.agent.connected ? true : undefined));
  const kubeconfig = await a.kubeconfig();
  const token = await stack.proxyToken(a.id);
  t.equal((await timed(stack, a.id, token)).status, 200);
  const timedOut = "the cluster's Kubernetes API did not answer within 1000 ms";

  t.test('stalled: kubectl gets a 504 Status within KUBE_REQUEST_TIMEOUT, and is served once it heals', async (t) => {
    kube!.stall();
    const res = await timed(stack, a.id, token);
    t.equal(res.status, 504);
    t.match(JSON.parse(res.body), {
      kind: 'Status',
      status: 'Failure',
      code: 504,
      reason: 'Timeout',
      message: timedOut,
    });
    t.ok(res.ms >= KUBE_TIMEOUT_MS && res.ms < KUBE_TIMEOUT_MS + 1500, `answered in ${res.ms} ms`);
    const printed = await kubectl(kubeconfig, ['get', 'namespaces'], undefined, 20_000);
    t.not(printed.code, 0);
    t.match(printed.stderr, timedOut, 'kubectl prints why');
    kube!.heal();
    await answers(stack, a.id, token, 200, 5000);
    t.ok(a.agent.connected, 'the tunnel stayed up throughout');
  });

  t.test('stalled for good: the agent gives up the dead connections and is served by new ones', async (t) => {
    kube!.stall();
    t.equal((await timed(stack, a.id, token)).status, 504);
    kube!.restore();
    await answers(stack, a.id, token, 200, 5000);
  });

  t.test('stalled: an exec upgrade gets a 504 within the bound', async (t) => {
    t.equal((await kubectl(kubeconfig, ['apply', '-f', '-'], POD)).code, 0);
    await untilPodRuns(kubeconfig);
    kube!.stall();
    const startedAt = Date.now();
    const res = await kubectl(kubeconfig, ['exec', '-i', 'game', '--', 'sh'], 'echo hello\n', 20_000);
    const ms = Date.now() - startedAt;
    t.not(res.code, 0);
    t.match(res.stderr, `Error from server (Timeout): ${timedOut}`);
    t.ok(ms < KUBE_TIMEOUT_MS + 1500, `kubectl gave up in ${ms} ms`);
    kube!.heal();
  });

  t.test('cut: kubectl gets a 502 at once, and is served again once it is back', async (t) => {
    kube!.cut();
    const res = await timed(stack, a.id, token);
    t.equal(res.status, 502);
    t.ok(res.ms < 1000, `answered in ${res.ms} ms`);
    kube!.restore();
    await answers(stack, a.id, token, 200, 5000);
  });
});
