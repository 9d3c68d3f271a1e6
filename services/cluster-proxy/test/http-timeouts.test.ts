import tls from 'node:tls';
import t from 'tap';
import { kubectl, kubectlProcess, startStack, until } from './stack.js';
import type { Stack } from './stack.js';
import { gameServer, POD, untilPodRuns } from './workload.js';

/**
 * Opens a TLS connection to the kubectl port and sends `bytes`, then nothing more; resolves with
 * how long until the proxy hung up, and what it said.
 */
function stallAfter(stack: Stack, bytes: string): Promise<{ ms: number; answer: string }> {
  const { hostname, port } = new URL(stack.proxyUrl);
  return new Promise((resolve, reject) => {
    let answer = '';
    let sentAt = 0;
    const socket = tls.connect({ host: hostname, port: Number(port), ca: stack.ca }, () => {
      sentAt = Date.now();
      socket.write(bytes);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () =>
      sentAt ? resolve({ ms: Date.now() - sentAt, answer }) : reject(new Error('no connection')),
    );
  });
}

t.test('a client that stalls mid-headers is cut off within HTTP_HEADERS_TIMEOUT', async (t) => {
  const stack = await startStack(t, { clusters: 0, proxyEnv: { HTTP_HEADERS_TIMEOUT: '500ms' } });
  const partial = 'GET /clusters/c/api/v1/namespaces HTTP/1.1\r\nhost: proxy\r\nauthorization: Bear';
  const { ms, answer } = await stallAfter(stack, partial);
  t.comment(`cut off ${ms} ms after the partial request`);
  t.ok(ms >= 400 && ms < 1500, `within the 500 ms bound and Node's check interval (${ms} ms)`);
  t.match(answer, /^HTTP\/1\.1 408 [^]*content-type: application\/problem\+json/i, 'with a 408 problem');
});

t.test('with HTTP_REQUEST_TIMEOUT', async (t) => {
  const stack = await startStack(t, { proxyEnv: { HTTP_REQUEST_TIMEOUT: '1s' } });
  const [cluster] = stack.clusters as [Stack['clusters'][0]];
  await until('the agent to connect', () => (cluster.agent.connected ? true : undefined));
  const kubeconfig = await cluster.kubeconfig();
  const token = await stack.proxyToken(cluster.id);

  t.test('an upload that stalls is cut off within the bound', async (t) => {
    const head = [
      `POST /clusters/${cluster.id}/api/v1/namespaces/default/configmaps HTTP/1.1`,
      'host: proxy',
      `authorization: Bearer ${token}`,
      'content-type: application/json',
      'content-length: 1000',
    ];
    const { ms, answer } = await stallAfter(stack, `${head.join('\r\n')}\r\n\r\n{"apiVersion":"v1",`);
    t.comment(`cut off ${ms} ms after the partial body`);
    t.ok(ms >= 900 && ms < 2500, `within the 1 s bound and Node's check interval (${ms} ms)`);
    t.match(answer, /^HTTP\/1\.1 408 [^]*content-type: application\/problem\+json/i, 'with a 408 problem');
  });

  t.test('a watch streams on past the bound: it bounds receiving the request, not the answer', async (t) => {
    const args = ['get', 'gameservers', '-n', 'default', '-w', '--output-watch-events'];
    const watch = kubectlProcess(kubeconfig, args, undefined, 30_000);
    t.teardown(() => watch.kill());
    const startedAt = Date.now();
    for (let i = 0; Date.now() - startedAt < 2500; i++) {
      t.equal((await kubectl(kubeconfig, ['apply', '-f', '-'], gameServer(`arena-${i}`))).code, 0);
      const event = new RegExp(`ADDED\\s+arena-${i}\\s`);
      await until(`the event of arena-${i}`, () => (event.test(watch.stdout()) ? true : undefined), 10_000);
    }
    t.pass(`the watch streamed for ${Date.now() - startedAt} ms`);
  });

  t.test('an exec session lives on past the bound: the upgraded socket is no longer a request', async (t) => {
    t.equal((await kubectl(kubeconfig, ['apply', '-f', '-'], POD)).code, 0);
    await untilPodRuns(kubeconfig);
    const exec = kubectlProcess(kubeconfig, ['exec', '-i', 'game', '--', 'sh'], undefined, 30_000);
    t.teardown(() => exec.kill());
    const startedAt = Date.now();
    for (let i = 0; Date.now() - startedAt < 2500; i++) {
      exec.stdin.write(`echo line ${i}\n`);
      await until(`line ${i} back`, () => (exec.stdout().includes(`line ${i}\n`) ? true : undefined), 10_000);
    }
    exec.stdin.end();
    const done = await exec.done;
    t.equal(done.code, 0, done.stderr);
    t.pass(`the session lasted ${Date.now() - startedAt} ms`);
  });
});
