import t from 'tap';
import { kubectl, kubectlProcess } from '../stack.js';
import { gameServer, within } from '../workload.js';
import { startReplicaStack, until } from './harness.js';
import type { Replica } from './harness.js';
import { startLoad, summary } from './load.js';

// Issue 24, acceptance 1: three replicas behind a round-robin balancer, one agent holding a tunnel to
// each; every call over the balancer succeeds, through a SIGTERM and through a rolling restart.
t.setTimeout(110_000);

const DRAIN_GRACE_MS = 5000;
const stack = await startReplicaStack(t, {
  replicas: 3,
  proxyEnv: { DRAIN_GRACE: `${DRAIN_GRACE_MS}ms` },
});
const ids = stack.replicas.map((r) => r.id);
const namespaces = stack.clusterUrl('/api/v1/namespaces');
const load = (total?: { raw: number; kubectl: number }) =>
  startLoad({
    url: namespaces,
    ca: stack.ca,
    token: stack.token,
    concurrency: 4,
    kubeconfig: stack.kubeconfig,
    ...(total === undefined ? {} : { total: total.raw, kubectlTotal: total.kubectl, kubectlConcurrency: 3 }),
  });
const failuresOf = (r: { failures: { what: string; startedMs: number; endedMs: number }[] }) =>
  r.failures.slice(0, 5).map((f) => `${f.startedMs}-${f.endedMs} ms: ${f.what}`);

t.test('the agent holds one tunnel to each of three replicas, and 300 calls over the balancer succeed', async (t) => {
  const covered = await stack.untilHeldBy(ids, 20_000);
  t.comment(`the agent held a tunnel to each of ${ids.join(', ')} ${covered} ms after the stack was up`);
  t.same(await stack.counted(), ids, 'proxy_replicas counts the three replicas');
  t.same(stack.agent.replicas, ids, 'the agent says it holds the three');
  t.equal(stack.agent.target, 3, 'as many as the replicas announce');
  t.same(await stack.tunnelGauges(), { r1: 1, r2: 1, r3: 1 }, 'each replica reports one live tunnel');

  for (const replica of stack.replicas) {
    const res = await kubectl(stack.kubeconfigFor(replica), ['get', 'namespaces', '-o', 'name']);
    t.equal(res.code, 0, `kubectl straight to ${replica.id} works: any replica serves the cluster`);
  }

  const before = stack.kubectlBalancer.counts();
  const result = await load({ raw: 270, kubectl: 30 }).done;
  t.comment(summary(result));
  t.equal(result.failures.length, 0, 'no call failed', { failures: failuresOf(result) });
  t.equal(result.ok, 300, '300 calls succeeded');
  t.equal(result.kubectlOk, 30, 'of which 30 by the real kubectl');
  const after = stack.kubectlBalancer.counts();
  const spread = Object.fromEntries(ids.map((id) => [id, (after[id] ?? 0) - (before[id] ?? 0)]));
  t.comment(`connections per replica through the balancer: ${JSON.stringify(spread)}`);
  t.ok(
    ids.every((id) => (spread[id] ?? 0) > 0),
    'the balancer spread the connections over every replica',
  );
});

t.test('SIGTERM on one replica under load: no call fails, a watch through another keeps running', async (t) => {
  const [victim, watched] = stack.replicas as [Replica, Replica, Replica];
  await stack.untilHeldBy(ids, 10_000);
  const watch = kubectlProcess(
    stack.kubeconfigFor(watched),
    ['get', 'gameservers', '-n', 'default', '-w', '--output-watch-events'],
    undefined,
    80_000,
  );
  t.teardown(() => watch.kill());
  const applied = await kubectl(stack.kubeconfig, ['apply', '-f', '-'], gameServer('arena-1'));
  t.equal(applied.code, 0, 'a GameServer is created through the balancer');
  await until('the watch to stream', () => (/ADDED\s+arena-1/.test(watch.stdout()) ? true : undefined), 10_000);

  const running = load();
  await until('the load to run', () => (running.result.ok >= 30 ? true : undefined), 15_000);
  const exit = victim.signal('SIGTERM');
  const signalled = Date.now();
  const unready = await until(
    'the replica to turn unready',
    async () => ((await victim.ready()) ? undefined : true),
    2000,
    10,
  )
    .then(() => Date.now() - signalled)
    .catch(() => -1);
  t.ok(unready >= 0, `its /readyz failed ${unready} ms after SIGTERM`);
  const uncounted = await until(
    'the replica to leave the count',
    async () => ((await stack.counted())?.includes(victim.id) === false ? true : undefined),
    3000,
    10,
  )
    .then(() => Date.now() - signalled)
    .catch(() => -1);
  t.ok(uncounted >= 0, `proxy_replicas stopped counting it ${uncounted} ms after SIGTERM`);

  const exited = await within(DRAIN_GRACE_MS + 5000, exit);
  t.ok(exited, 'the replica exited');
  t.equal(exited?.code, 0, 'with status 0');
  t.ok((exited?.ms ?? Infinity) < DRAIN_GRACE_MS + 2000, `within the drain grace (${exited?.ms} ms after SIGTERM)`);
  const okAtExit = running.result.ok;

  const labelled = await kubectl(stack.kubeconfig, ['label', 'gameserver', 'arena-1', 'round=2']);
  t.equal(labelled.code, 0, 'and changed after the replica exited');
  await until(
    'the watch to stream the change',
    () => (/MODIFIED\s+arena-1/.test(watch.stdout()) ? true : undefined),
    5000,
  )
    .then(() => t.pass('the watch through another replica still streams'))
    .catch(() => t.fail('the watch through another replica still streams', { stdout: watch.stdout() }));
  t.notOk(await within(10, watch.done), 'and kubectl get -w still runs');

  const restarted = Date.now();
  await victim.start();
  const coverage = await stack.untilHeldBy(ids, 15_000, restarted);
  t.comment(`restarted ${victim.id}: ready and held by the agent again ${coverage} ms after the restart began`);
  await until('more calls after the restart', () => (running.result.ok >= okAtExit + 30 ? true : undefined), 15_000);
  const result = await running.stop();
  t.comment(summary(result));
  t.equal(result.failures.length, 0, 'no call failed during the drain', { failures: failuresOf(result) });
  watch.kill();
});

t.test('a watch through the draining replica streams on until the drain grace, then the replica exits', async (t) => {
  const victim = stack.replicas[2]!;
  await stack.untilHeldBy(ids, 10_000);
  const applied = await kubectl(stack.kubeconfig, ['apply', '-f', '-'], gameServer('arena-1'));
  t.equal(applied.code, 0, 'the GameServer exists');
  const watch = kubectlProcess(
    stack.kubeconfigFor(victim),
    ['get', 'gameservers', '-n', 'default', '-w', '--output-watch-events'],
    undefined,
    60_000,
  );
  t.teardown(() => watch.kill());
  await until('the watch to stream', () => (/ADDED\s+arena-1/.test(watch.stdout()) ? true : undefined), 10_000);

  const exit = victim.signal('SIGTERM');
  const signalled = Date.now();
  await until('the replica to turn unready', async () => ((await victim.ready()) ? undefined : true), 2000, 10);
  const labelled = await kubectl(stack.kubeconfig, ['label', 'gameserver', 'arena-1', 'round=3', '--overwrite']);
  t.equal(labelled.code, 0, 'a change is made through the balancer while the replica drains');
  await until(
    'the watch to stream the change',
    () => (/MODIFIED\s+arena-1/.test(watch.stdout()) ? true : undefined),
    3000,
  )
    .then(() => t.pass(`the watch through the draining replica still streams (${Date.now() - signalled} ms in)`))
    .catch(() => t.fail('the watch through the draining replica still streams', { stdout: watch.stdout() }));

  const ended = await within(DRAIN_GRACE_MS + 5000, watch.done);
  const endedMs = Date.now() - signalled;
  t.ok(ended, `the watch ended ${endedMs} ms after SIGTERM (exit ${ended?.code})`);
  t.ok(endedMs >= DRAIN_GRACE_MS - 300, `not before the drain grace (${DRAIN_GRACE_MS} ms)`);
  const exited = await within(5000, exit);
  t.equal(exited?.code, 0, `the replica exited with 0, ${exited?.ms} ms after SIGTERM`);
  t.ok((exited?.ms ?? Infinity) < DRAIN_GRACE_MS + 2000, 'soon after the grace');

  const restarted = Date.now();
  await victim.start();
  const coverage = await stack.untilHeldBy(ids, 15_000, restarted);
  t.comment(`restarted ${victim.id}: held by the agent again ${coverage} ms after the restart began`);
});

t.test('a rolling restart of the three replicas under load: zero failed calls', async (t) => {
  await stack.untilHeldBy(ids, 10_000);
  const running = load();
  await until('the load to run', () => (running.result.ok >= 30 ? true : undefined), 15_000);
  for (const replica of stack.replicas) {
    const stopped = await replica.stop('SIGTERM');
    const began = Date.now();
    await replica.start();
    const started = Date.now() - began;
    const coverage = await stack.untilHeldBy(ids, 15_000, began);
    t.comment(
      `${replica.id}: drained and exited in ${stopped.ms} ms (status ${stopped.code}); ready after ${started} ms; ` +
        `held by the agent again after ${coverage} ms; ${running.result.ok} calls so far`,
    );
    t.equal(stopped.code, 0, `${replica.id} exited with 0`);
  }
  const result = await running.stop();
  t.comment(summary(result));
  t.equal(result.failures.length, 0, 'no call failed during the rolling restart', { failures: failuresOf(result) });
  t.ok(result.ok > 100, `${result.ok} calls succeeded`);
});
