import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Test } from 'tap';
import { occupiedPort, runEntry } from '@gsp/service-kit/testing/entry';
import { freshSchema } from '@gsp/api-server/testing';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

/** Runs the proxy's server entry until it exits; its exit code and standard error. */
async function runProxy(t: Test, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const { url } = await freshSchema(t);
  // No server answers on port 1: the API server is never reached before the ports are bound.
  return runEntry(t, server, {
    DATABASE_URL: url,
    API_SERVER_URL: 'http://127.0.0.1:1',
    HOST: '127.0.0.1',
    PORT: '0',
    TUNNEL_PORT: '0',
    METRICS_PORT: '0',
    ...env,
  });
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
