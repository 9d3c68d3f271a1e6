import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Test } from 'tap';
import { freshSchema } from '../../api-server/test/helper.js';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

async function occupiedPort(t: Test): Promise<number> {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => busy.close());
  return (busy.address() as net.AddressInfo).port;
}

/** Runs the proxy's server entry until it exits (at most 30 s); its exit code and standard error. */
async function runProxy(t: Test, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const { url } = await freshSchema(t);
  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', server], {
    // No server answers on port 1: the API server is never reached before the ports are bound.
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: url,
      API_SERVER_URL: 'http://127.0.0.1:1',
      HOST: '127.0.0.1',
      PORT: '0',
      TUNNEL_PORT: '0',
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stderr };
}

t.test(
  'a busy METRICS_PORT stops the proxy with a configuration error naming METRICS_PORT, without a stack',
  async (t) => {
    const port = await occupiedPort(t);
    const { code, stderr } = await runProxy(t, { METRICS_PORT: String(port) });
    t.equal(code, 1, 'exit code 1');
    t.equal(stderr.trim(), `cluster-proxy: invalid configuration: METRICS_PORT: 127.0.0.1:${port} is already in use`);
    t.notMatch(stderr, /\n\s+at /, 'no stack trace');
  },
);

t.test('a busy TUNNEL_PORT is named as TUNNEL_PORT', async (t) => {
  const port = await occupiedPort(t);
  const { code, stderr } = await runProxy(t, { TUNNEL_PORT: String(port) });
  t.equal(code, 1);
  t.equal(stderr.trim(), `cluster-proxy: invalid configuration: TUNNEL_PORT: 127.0.0.1:${port} is already in use`);
});

t.test('two variables naming one port are refused before anything listens', async (t) => {
  const port = String(await occupiedPort(t));
  const { code, stderr } = await runProxy(t, { PORT: port, METRICS_PORT: port });
  t.equal(code, 1);
  t.equal(
    stderr.trim(),
    `cluster-proxy: invalid configuration: METRICS_PORT: must differ from PORT (both are ${port})`,
  );
});
