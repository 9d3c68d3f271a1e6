import t from 'tap';
import { Code } from '@connectrpc/connect';
import { bearer } from '../stack.js';
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

t.test('removing a member refuses their kubeconfig on every replica within 1 s', async (t) => {
  await stack.untilHeldBy(ids, 10_000);
  const other = await tokenOf(OTHER_OPERATOR);
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
  for (const replica of stack.replicas)
    t.equal(await statusAt(replica, other), 200, `${replica.id} still serves ${OTHER_OPERATOR}`);
});

t.test('deleting the cluster refuses it on every replica within 1 s and closes its tunnels everywhere', async (t) => {
  await stack.untilHeldBy(ids, 10_000);
  const other = await tokenOf(OTHER_OPERATOR);
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
  const closed = await allTunnelsClosed(deletedAt);
  t.comment(`every replica's tunnels at 0 ${closed} ms after the delete`);
  t.ok(closed >= 0, 'its tunnels are closed on all three replicas within 1 s', { gauges: await stack.tunnelGauges() });
  const attempts = stack.agent.attempts;
  await until(
    'the agent to be refused',
    () => (stack.agent.attempts > attempts ? stack.agent.lastError : undefined),
    5000,
  );
  t.equal(stack.agent.lastError?.code, Code.Unauthenticated, "the agent's redials are refused");
});
