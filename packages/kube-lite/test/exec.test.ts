import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { Attach, CoreV1Api, Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';
import type { KubeLite } from '@gsp/kube-lite';
import { kubectlOk, runningPod, startForTest, until } from './helper.js';

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

async function exec(
  kc: KubeConfig,
  command: string[],
  input?: string,
): Promise<{ stdout: string; stderr: string; status: V1Status }> {
  const stdout = collect();
  const stderr = collect();
  let stdin: PassThrough | null = null;
  if (input !== undefined) {
    stdin = new PassThrough();
    stdin.end(input);
  }
  let status: V1Status | undefined;
  await new Exec(kc).exec(
    'default',
    'game',
    'server',
    command,
    stdout.stream,
    stderr.stream,
    stdin,
    false,
    (s) => (status = s),
  );
  await until(() => status, 'the exit status');
  return { stdout: stdout.text(), stderr: stderr.text(), status: status as V1Status };
}

t.test('client-node Exec runs a command and reports success', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const result = await exec(kube.kubeConfig, ['echo', 'hi']);
  t.equal(result.stdout, 'hi\n');
  t.match(result.status, { status: 'Success' });
});

t.test('a failing command reports NonZeroExitCode with its exit code', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const result = await exec(kube.kubeConfig, ['no-such-program']);
  t.match(result.stderr, 'executable file not found');
  t.match(result.status, {
    status: 'Failure',
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: '127' }] },
  });
});

t.test('an interactive shell answers console commands and echoes other lines until stdin closes', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const result = await exec(kube.kubeConfig, ['sh'], 'join alice\nplayers\nhello there\n');
  t.equal(result.stdout, 'alice joined\n1 player(s): alice\nhello there\n');
  t.match(result.status, { status: 'Success' });
});

t.test('client-node Attach talks to the console', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const stdout = collect();
  const stdin = new PassThrough();
  const ws = await new Attach(kube.kubeConfig).attach('default', 'game', 'server', stdout.stream, null, stdin, false);
  t.teardown(() => ws.close());
  stdin.write('say welcome\n');
  await until(() => stdout.text().includes('[server] welcome\n'), 'the console to answer');
  const logs = await kube.kubeConfig
    .makeApiClient(CoreV1Api)
    .readNamespacedPodLog({ namespace: 'default', name: 'game' });
  t.match(logs, '[say] welcome');
});

t.test(
  'every attached client sees what the main process writes, whoever typed it; an exec sees only its own',
  async (t) => {
    const kube = await startForTest(t);
    await runningPod(kube);
    const attach = async () => {
      const stdout = collect();
      const stdin = new PassThrough();
      const ws = await new Attach(kube.kubeConfig).attach(
        'default',
        'game',
        'server',
        stdout.stream,
        null,
        stdin,
        false,
      );
      t.teardown(() => ws.close());
      return { stdout, stdin };
    };
    const first = await attach();
    const second = await attach();
    first.stdin.write('say from the first\n');
    await until(
      () => second.stdout.text().includes('[server] from the first\n'),
      'the second client to see the answer',
    );
    t.ok(first.stdout.text().includes('[server] from the first\n'), 'the first sees it too');
    const own = await exec(kube.kubeConfig, ['sh'], 'say from an exec\n');
    t.equal(own.stdout, '[server] from an exec\n', 'an exec has its own output');
    t.notMatch(first.stdout.text(), 'from an exec', 'which no attached client sees');
  },
);

t.test('the v4 channel protocol works without the v5 close message', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const url =
    `${kube.url.replace('http', 'ws')}/api/v1/namespaces/default/pods/game/exec` +
    '?command=sh&stdin=true&stdout=true&stderr=true';
  const ws = new WebSocket(url, ['v4.channel.k8s.io']);
  t.teardown(() => ws.terminate());
  const frames: { channel: number; text: string }[] = [];
  ws.on('message', (data: Buffer) => frames.push({ channel: data[0] as number, text: data.subarray(1).toString() }));
  await new Promise((resolve) => ws.once('open', resolve));
  t.equal(ws.protocol, 'v4.channel.k8s.io');
  ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('echo over v4\nexit 3\n')]));
  await until(() => frames.some((f) => f.channel === 3), 'the status frame');
  t.same(
    frames.filter((f) => f.channel === 1).map((f) => f.text),
    ['over v4\n'],
  );
  t.match(JSON.parse(frames.find((f) => f.channel === 3)?.text ?? '{}'), {
    status: 'Failure',
    details: { causes: [{ message: '3' }] },
  });
});

/** A plain HTTP/1.1 reverse proxy that forwards requests and upgrades, like the cluster proxy. */
async function reverseProxy(t: Test, target: string): Promise<string> {
  const { hostname, port } = new URL(target);
  const proxy = createServer((req, res) => {
    const upstream = httpRequest(
      { host: hostname, port, method: req.method, path: req.url, headers: req.headers },
      (up: IncomingMessage) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  proxy.on('upgrade', (req, socket, head) => {
    const upstream = connect(Number(port), hostname, () => {
      const lines = [
        `${req.method} ${req.url} HTTP/1.1`,
        ...Object.entries(req.headers).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`),
      ];
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    proxy.closeAllConnections();
    return new Promise<void>((resolve) => proxy.close(() => resolve()));
  });
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

t.test('exec works through a plain HTTP reverse proxy', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const proxied = new KubeConfig();
  proxied.loadFromOptions({
    clusters: [{ name: 'proxy', server: await reverseProxy(t, kube.url), skipTLSVerify: true }],
    users: [{ name: 'u', token: 'anything' }],
    contexts: [{ name: 'proxy', cluster: 'proxy', user: 'u' }],
    currentContext: 'proxy',
  });
  const result = await exec(proxied, ['sh'], 'status\n');
  t.match(result.stdout, /^pod default\/game: phase=Running\n$/);
  t.match(result.status, { status: 'Success' });
});

t.test('exec into a pod that does not exist fails before the upgrade', async (t) => {
  const kube = await startForTest(t);
  const ws = new WebSocket(`${kube.url.replace('http', 'ws')}/api/v1/namespaces/default/pods/ghost/exec?command=ls`, [
    'v5.channel.k8s.io',
  ]);
  const status = await new Promise<number>((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
  t.equal(status, 404);
});

t.test('printf hands each argument to the process as one argv element', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const result = await exec(kube.kubeConfig, ['printf', '[%s]\\n', 'a', 'b c', '; rm -rf /']);
  t.equal(result.stdout, '[a]\n[b c]\n[; rm -rf /]\n');
  t.match(result.status, { status: 'Success' });
  t.equal(
    await kubectlOk(t, kube, ['exec', 'game', '--', 'printf', '%s=%d%%\\t|\\n', 'load', '42', "it's", '-7']),
    "load=42%\t|\nit's=-7%\t|\n",
  );
});

t.test('printf with a number that is not one fails like coreutils', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const result = await exec(kube.kubeConfig, ['printf', '%d\\n', 'many']);
  t.equal(result.stdout, '0\n');
  t.equal(result.stderr, "printf: 'many': expected a numeric value\n");
  t.match(result.status, { status: 'Failure', details: { causes: [{ message: '1' }] } });
});

t.test('sleep exits 0 once its time has passed', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const started = Date.now();
  const result = await exec(kube.kubeConfig, ['sleep', '0.3']);
  t.ok(Date.now() - started >= 300, 'not before 0.3 s');
  t.match(result.status, { status: 'Success' });
  const bad = await exec(kube.kubeConfig, ['sleep', 'soon']);
  t.equal(bad.stderr, "sleep: invalid time interval 'soon'\nTry 'sleep --help' for more information.\n");
  t.match(bad.status, { status: 'Failure', details: { causes: [{ message: '1' }] } });
});

const activeTimers = (): number => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

async function startSleeping(t: Test, kube: KubeLite): Promise<{ ws: WebSocket; before: number }> {
  await runningPod(kube);
  const before = activeTimers();
  const ws = (await new Exec(kube.kubeConfig).exec(
    'default',
    'game',
    'server',
    ['sleep', '600'],
    collect().stream,
    collect().stream,
    null,
    false,
  )) as WebSocket;
  t.teardown(() => ws.terminate());
  await until(() => activeTimers() > before, 'the sleep to hold a timer');
  return { ws, before };
}

t.test('a sleep whose client goes away keeps no timer alive', async (t) => {
  const kube = await startForTest(t);
  const { ws, before } = await startSleeping(t, kube);
  ws.close();
  await until(() => activeTimers() <= before, "the sleep's timer to be cleared");
  t.pass('no timer outlives the exec session');
});

t.test('closing kube-lite ends a running sleep and its timer', async (t) => {
  const kube = await startForTest(t);
  const { ws, before } = await startSleeping(t, kube);
  await kube.close();
  await until(() => ws.readyState === WebSocket.CLOSED, 'the session to end');
  await until(() => activeTimers() <= before, "the sleep's timer to be cleared");
  t.pass('no timer outlives kube-lite');
});

t.test('seq prints one number a line, well past 64 KiB', async (t) => {
  const kube = await startForTest(t);
  await runningPod(kube);
  const result = await exec(kube.kubeConfig, ['seq', '20000']);
  const lines = result.stdout.split('\n');
  t.ok(result.stdout.length > 64 * 1024, `${result.stdout.length} bytes`);
  t.equal(lines.length, 20001);
  t.same([lines[0], lines[1], lines[19999], lines[20000]], ['1', '2', '20000', '']);
  t.match(result.status, { status: 'Success' });
  t.equal((await exec(kube.kubeConfig, ['seq', '3', '-1', '1'])).stdout, '3\n2\n1\n');
  const tooMany = await exec(kube.kubeConfig, ['seq', '1000001']);
  t.equal(tooMany.stdout, '');
  t.match(tooMany.status, { status: 'Failure', details: { causes: [{ message: '1' }] } });
});
