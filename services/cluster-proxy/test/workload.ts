import type { Test } from 'tap';
import { kubectl, kubectlProcess, until } from './stack.js';

/** What the tests run in a cluster, and how they wait for it, through kubectl and the proxy. */

export const POD = `apiVersion: v1
kind: Pod
metadata: { name: game, namespace: default }
spec: { containers: [{ name: server, image: "game:1" }] }
`;

/** An Agones GameServer; `port` adds a named container port. */
export const gameServer = (name: string, port?: number) => {
  const ports = port === undefined ? '' : `  ports: [{ name: default, containerPort: ${port} }]\n`;
  return `apiVersion: agones.dev/v1
kind: GameServer
metadata: { name: ${name}, namespace: default }
spec:
${ports}  template: { spec: { containers: [{ name: server, image: "game:1" }] } }
`;
};

/** The message kubectl prints when the kill switch refuses it. */
export const POLICY = 'CLI access is disabled by platform policy';
/** The refusal's sentence when the tenant's own admin or operator switched the cluster off. */
export const TENANT_DECISION = "CLI access is disabled by the tenant's own decision";

/** True when `kubectl get namespaces` succeeds (undefined otherwise, for `until`). */
export const works = async (kubeconfig: string): Promise<true | undefined> =>
  (await kubectl(kubeconfig, ['get', 'namespaces'])).code === 0 ? true : undefined;

/** Waits until pod `game` (see POD) runs. */
export async function untilPodRuns(kubeconfig: string): Promise<void> {
  await until(
    'the pod to run',
    async () => {
      const phase = await kubectl(kubeconfig, ['get', 'pod', 'game', '-o', 'jsonpath={.status.phase}']);
      return phase.stdout === 'Running' ? true : undefined;
    },
    10_000,
    50,
  );
}

/** A `kubectl get gameservers -w` (with `args`), already streaming a created GameServer. */
export async function runningWatch(
  t: Test,
  kubeconfig: string,
  args: string[] = ['--output-watch-events'],
): Promise<ReturnType<typeof kubectlProcess>> {
  const watch = kubectlProcess(kubeconfig, ['get', 'gameservers', '-n', 'default', '-w', ...args], undefined, 30_000);
  t.teardown(() => watch.kill());
  t.equal((await kubectl(kubeconfig, ['apply', '-f', '-'], gameServer('arena-1'))).code, 0);
  const streamed = args.includes('--output-watch-events') ? /ADDED\s+arena-1/ : /arena-1/;
  await until('the watch to stream', () => (streamed.test(watch.stdout()) ? true : undefined), 10_000);
  return watch;
}

/** `p`'s value if it settles within `ms`, else undefined. */
export const within = <T>(ms: number, p: Promise<T>): Promise<T | undefined> =>
  Promise.race([p, new Promise<undefined>((r) => setTimeout(r, ms, undefined).unref())]);
