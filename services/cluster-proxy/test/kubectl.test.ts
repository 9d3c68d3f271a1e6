import https from 'node:https';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { kubectl, kubectlProcess, startStack, until } from './stack.js';
import { gameServer as gameServerWith, POD, untilPodRuns } from './workload.js';

const gameServer = (name: string) => gameServerWith(name, 7654);

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
    const created = await kubectl(kubeconfig, [
      'create',
      'secret',
      'generic',
      'db-password',
      '-n',
      'default',
      '--from-literal=password=hunter2',
    ]);
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
    await untilPodRuns(kubeconfig);
    const res = await kubectl(kubeconfig, ['exec', '-i', 'game', '--', 'sh'], 'hello through the tunnel\n');
    t.equal(res.code, 0, res.stderr);
    t.equal(res.stdout, 'hello through the tunnel\n');
  });

  t.test('logs -f follows the pod through the tunnel', async (t) => {
    await untilPodRuns(kubeconfig);
    const logs = kubectlProcess(kubeconfig, ['logs', '-f', 'game']);
    t.teardown(() => logs.kill());
    await until(
      'the earlier lines',
      () => (logs.stdout().includes('container server started') ? true : undefined),
      10_000,
      20,
    );
    const said = await kubectl(kubeconfig, ['exec', '-i', 'game', '--', 'sh'], 'say streamed through the tunnel\n');
    t.equal(said.code, 0, said.stderr);
    await until(
      'the new line to arrive while following',
      () => (logs.stdout().includes('[say] streamed through the tunnel') ? true : undefined),
      10_000,
      20,
    );
  });

  t.test('a list larger than one tunnel message arrives whole', async (t) => {
    // 12 ConfigMaps of 400 KiB: each create sends a 400 KiB body through the tunnel, and the
    // list answers about 4.8 MiB, more than Connect's 4 MiB message limit, so it must be split.
    const value = 'x'.repeat(400 * 1024);
    for (let i = 0; i < 12; i++) {
      const manifest = JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `big-${i}`, namespace: 'default', labels: { size: 'big' } },
        data: { blob: value },
      });
      const created = await kubectl(kubeconfig, ['create', '-f', '-'], manifest);
      t.equal(created.code, 0, created.stderr);
    }
    const listed = await kubectl(kubeconfig, ['get', 'configmaps', '-n', 'default', '-l', 'size=big', '-o', 'json']);
    t.equal(listed.code, 0, listed.stderr);
    t.ok(listed.stdout.length > 4 * 1024 * 1024, `the list is ${listed.stdout.length} bytes`);
    const items = (JSON.parse(listed.stdout) as { items: { metadata: { name: string }; data: { blob: string } }[] })
      .items;
    t.equal(items.length, 12);
    t.ok(
      items.every((item) => item.data.blob === value),
      'every item is complete',
    );
  });

  t.test('a chunked request body (no Content-Length) is streamed to the API server', async (t) => {
    const token = /token: "?([^"\s]+)"?/.exec(readFileSync(kubeconfig, 'utf8'))?.[1] ?? '';
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'chunked', namespace: 'default' },
      data: { greeting: 'in three pieces' },
    });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request(
        `${stack.proxyUrl}/clusters/${cluster!.id}/api/v1/namespaces/default/configmaps`,
        {
          method: 'POST',
          ca: stack.ca,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      const third = Math.ceil(manifest.length / 3);
      // Three writes in separate turns: the body reaches the agent as separate frames.
      req.write(manifest.slice(0, third));
      setImmediate(() => {
        req.write(manifest.slice(third, 2 * third));
        setImmediate(() => req.end(manifest.slice(2 * third)));
      });
    });
    t.equal(answer.status, 201, answer.body);
    const got = await kubectl(kubeconfig, ['get', 'configmap', 'chunked', '-o', 'jsonpath={.data.greeting}']);
    t.equal(got.stdout, 'in three pieces', got.stderr);
  });
});
