import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

t.test('a busy PORT stops the agent with a configuration error naming PORT, without a stack', async (t) => {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => busy.close());
  const port = (busy.address() as net.AddressInfo).port;

  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', server], {
    env: {
      PATH: process.env.PATH,
      // Nothing listens on port 1: the agent's dialling is never what stops it here.
      PROXY_TUNNEL_URL: 'http://127.0.0.1:1',
      CLUSTER_ID: 'c-busy',
      AGENT_TOKEN: 'token',
      KUBE_API_URL: 'http://127.0.0.1:1',
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);

  t.equal(code, 1, 'exit code 1');
  t.equal(stderr.trim(), `tunnel-agent: invalid configuration: PORT: 127.0.0.1:${port} is already in use`);
  t.notMatch(stderr, /\n\s+at /, 'no stack trace');
});
