import t from 'tap';
import { Code } from '@connectrpc/connect';
import type { Test } from 'tap';
import { bearer, kubectl, kubectlProcess } from '../stack.js';
import { gameServer, within } from '../workload.js';
import { OPERATOR, ORG, OTHER_OPERATOR, request, startReplicaStack, until, untilEveryReplica } from './harness.js';
import type { Replica } from './harness.js';

// Issue 24, acceptance 4: each revocation takes effect on every replica within 1 s, checked at each
// replica's own port. The replicas cache flags and rights for a minute: only the event can do it.
t.setTimeout(100_000);

const stack = await startReplicaStack(t, { replicas: 3 });
const ids = stack.replicas.map((r) => r.id);
const { id: clusterId } = stack.cluster;
const statusAt = async (replica: Replica, token: string) =>
  (await request(stack.clusterUrl('/api/v1/namespaces', replica.url), { ca: stack.ca, token })).status;

/** The kubeconfig token `subject` downloads. */
async function tokenOf(subject: string): Promise<string> {
  const res = await stack.api.app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${clusterId}/kubeconfig`,
    headers: await bearer(subject),
  });
  if (res.statusCode !== 200) throw new Error(`kubeconfig of ${subject}: ${res.statusCode}`);
  return /token: "?([^"\s]+)"?/.exec(res.body)?.[1] ?? '';
}

/** A `kubectl get gameservers -w` of `subject` straight to each replica, each already streaming. */
async function watchesAt(t: Test, subject: string) {
  const created = await kubectl((await stack.kubeconfigOf(subject)).path, ['apply', '-f', '-'], gameServer('arena-1'));
  if (created.code !== 0) throw new Error(`kubectl apply: ${created.stderr}`);
  return Promise.all(
    stack.replicas.map(async (replica) => {
      const { path } = await stack.kubeconfigOf(subject, replica);
      const watch = kubectlProcess(path, ['get', 'gameservers', '-n', 'default', '-w'], undefined, 60_000);
      t.teardown(() => watch.kill());
      await until(
        `the watch at ${replica.id} to stream`,
        () => (/arena-1/.test(watch.stdout()) ? true : undefined),
        10_000,
      );
      return { replica, watch };
    }),
  );
}

/**
 * Waits for every watch to end; resolves with when each was seen ended (ms since `from`; at the latest), by
 * replica.
 */
async function watchesEnded(watches: Awaited<ReturnType<typeof watchesAt>>, from: number, ms: number) {
  return Object.fromEntries(
    await Promise.all(
      watches.map(async ({ replica, watch }) => {
        const ended = await within(ms, watch.done);
        return [replica.id, ended ? { ms: Date.now() - from, stdout: ended.stdout } : undefined] as const;
      }),
    ),
  );
}

const allTunnelsClosed = async (from: number) =>
  until(
    'every replica to close its tunnel',
    async () => {
      const gauges = await stack.tunnelGauges();
      return Object.values(gauges).every((n) => n === 0) ? Date.now() - from : undefined;
    },
    1000,
    10,
  ).catch(() => -1);

t.test(
  'rotating the agent token closes its tunnel on every replica within 1 s; none takes the old token',
  async (t) => {
    await stack.untilHeldBy(ids, 20_000);
    const oldToken = stack.cluster.agentToken;
    const res = await stack.admin('POST', `/api/v1/tenants/${ORG}/clusters/${clusterId}/agent-token`);
    const rotatedAt = Date.now();
    t.equal(res.status, 200, 'the token is rotated');
    const newToken = (JSON.parse(res.body) as { agentToken: string }).agentToken;
    const closed = await allTunnelsClosed(rotatedAt);
    t.comment(`every replica's tunnels at 0 ${closed} ms after the rotation`);
    t.ok(closed >= 0, 'the tunnels opened with the old token are closed on all three replicas within 1 s', {
      gauges: await stack.tunnelGauges(),
    });

    // Straight to each replica's tunnel port, not through the balancer.
    for (const replica of stack.replicas) {
      const probe = stack.extraAgent(`http://127.0.0.1:${replica.tunnelPort}`, oldToken);
      const error = await until(`${replica.id} to answer the old token`, () => probe.lastError, 5000);
      t.equal(error.code, Code.Unauthenticated, `${replica.id} refuses the old token`);
      await probe.stop();
    }

    const restarted = Date.now();
    await stack.restartAgent(newToken);
    const held = await stack.untilHeldBy(ids, 10_000, restarted);
    t.comment(`the agent with the new token held all three ${held} ms after it started`);
    for (const replica of stack.replicas) t.equal(await statusAt(replica, stack.token), 200, `${replica.id} serves`);
  },
);

t.test('removing a member refuses their kubeconfig and ends their watch on every replica within 1 s', async (t) => {
  await stack.untilHeldBy(ids, 10_000);
  const other = await tokenOf(OTHER_OPERATOR);
  const watches = await watchesAt(t, OPERATOR);
  for (const replica of stack.replicas) {
    t.equal(await statusAt(replica, stack.token), 200, `${replica.id} serves ${OPERATOR} before`);
    t.equal(await statusAt(replica, other), 200, `and ${OTHER_OPERATOR}`);
  }
  const res = await stack.admin('DELETE', `/api/v1/tenants/${ORG}/members/${OPERATOR}`);
  const removedAt = Date.now();
  t.equal(res.status, 204, `${OPERATOR} is removed`);
  const refused = await untilEveryReplica(
    stack.replicas,
    `every replica to refuse ${OPERATOR}`,
    async (r) => (await statusAt(r, stack.token)) === 403,
    1000,
    removedAt,
  ).catch((err: Error) => (t.fail(err.message), undefined));
  if (refused) t.pass(`every replica answers 403 within 1 s (ms: ${JSON.stringify(refused)})`);
  const ended = await watchesEnded(watches, removedAt, 1000);
  for (const { replica } of watches) {
    const end = ended[replica.id];
    t.ok(end, `${OPERATOR}'s watch through ${replica.id} ended within 1 s (seen ${end?.ms} ms after)`);
    t.match(end?.stdout, `${OPERATOR} no longer holds admin or operator in tenant ${ORG}`, 'and printed why');
  }
  for (const replica of stack.replicas)
    t.equal(await statusAt(replica, other), 200, `${replica.id} still serves ${OTHER_OPERATOR}`);
});

t.test(
  'deleting the cluster refuses it, ends its watches and closes its tunnels on every replica within 1 s',
  async (t) => {
    await stack.untilHeldBy(ids, 10_000);
    const other = await tokenOf(OTHER_OPERATOR);
    const watches = await watchesAt(t, OTHER_OPERATOR);
    const res = await stack.admin('DELETE', `/api/v1/tenants/${ORG}/clusters/${clusterId}`);
    const deletedAt = Date.now();
    t.equal(res.status, 204, 'the cluster is deleted');
    const refused = await untilEveryReplica(
      stack.replicas,
      'every replica to answer 404',
      async (r) => (await statusAt(r, other)) === 404,
      1000,
      deletedAt,
    ).catch((err: Error) => (t.fail(err.message), undefined));
    if (refused) t.pass(`every replica answers 404 within 1 s (ms: ${JSON.stringify(refused)})`);
    const ended = await watchesEnded(watches, deletedAt, 1000);
    for (const { replica } of watches) {
      const end = ended[replica.id];
      t.ok(end, `the watch through ${replica.id} ended within 1 s (seen ${end?.ms} ms after)`);
      t.match(end?.stdout, `cluster ${clusterId} was deleted from the platform`, 'and printed why');
    }
    const closed = await allTunnelsClosed(deletedAt);
    t.comment(`every replica's tunnels at 0 ${closed} ms after the delete`);
    t.ok(closed >= 0, 'its tunnels are closed on all three replicas within 1 s', {
      gauges: await stack.tunnelGauges(),
    });
    const attempts = stack.agent.attempts;
    await until(
      'the agent to be refused',
      () => (stack.agent.attempts > attempts ? stack.agent.lastError : undefined),
      5000,
    );
    t.equal(stack.agent.lastError?.code, Code.Unauthenticated, "the agent's redials are refused");
  },
);
