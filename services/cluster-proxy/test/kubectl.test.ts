import t from 'tap';
import { kubectl, kubectlProcess, startStack, until } from './stack.js';

const POD = `apiVersion: v1
kind: Pod
metadata: { name: game, namespace: default }
spec: { containers: [{ name: server, image: "game:1" }] }
`;

const gameServer = (name: string) => `apiVersion: agones.dev/v1
kind: GameServer
metadata: { name: ${name}, namespace: default }
spec:
  ports: [{ name: default, containerPort: 7654 }]
  template: { spec: { containers: [{ name: server, image: "game:1" }] } }
`;

t.test('kubectl works through the proxy and the tunnel with a downloaded kubeconfig', async (t) => {
  const stack = await startStack(t);
  const [cluster] = stack.clusters;
  await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
  const kubeconfig = await cluster!.kubeconfig();

  t.test('get namespaces', async (t) => {
    const res = await kubectl(kubeconfig, ['get', 'namespaces']);
    t.equal(res.code, 0, res.stderr);
    t.match(res.stdout, /default\s+Active/);
  });

  t.test('create a secret and get secrets -A', async (t) => {
    const created = await kubectl(kubeconfig, ['create', 'secret', 'generic', 'db-password', '-n', 'default', '--from-literal=password=hunter2']);
    t.equal(created.code, 0, created.stderr);
    const res = await kubectl(kubeconfig, ['get', 'secrets', '-A']);
    t.equal(res.code, 0, res.stderr);
    t.match(res.stdout, /default\s+db-password\s+Opaque/);
  });

  t.test('get gameservers -w receives an event', async (t) => {
    const watch = kubectlProcess(kubeconfig, ['get', 'gameservers', '-n', 'default', '-w', '--output-watch-events']);
    t.teardown(() => watch.kill());
    // Whether the object lands before or after the watch opens, kubectl prints it as ADDED.
    const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], gameServer('arena-1'));
    t.equal(applied.code, 0, applied.stderr);
    await until('the ADDED event', () => (/ADDED\s+arena-1/.test(watch.stdout()) ? true : undefined), 10_000);
    t.pass('kubectl printed the event');
  });

  t.test('exec echoes a line through the WebSocket upgrade', async (t) => {
    const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], POD);
    t.equal(applied.code, 0, applied.stderr);
    await until('the pod to run', async () => ((await kubectl(kubeconfig, ['get', 'pod', 'game', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running' ? true : undefined), 10_000, 50);
    const res = await kubectl(kubeconfig, ['exec', '-i', 'game', '--', 'sh'], 'hello through the tunnel\n');
    t.equal(res.code, 0, res.stderr);
    t.equal(res.stdout, 'hello through the tunnel\n');
  });
});
