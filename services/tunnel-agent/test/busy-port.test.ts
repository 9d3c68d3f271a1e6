import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Test } from 'tap';
import { occupiedPort, runEntry } from '@gsp/service-kit/testing/entry';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

/** Runs the agent's server entry, dialling nowhere (nothing listens on port 1), until it exits. */
const runAgent = (t: Test, env: Record<string, string>) =>
  runEntry(t, server, {
    PROXY_TUNNEL_URL: 'http://127.0.0.1:1',
    CLUSTER_ID: 'c-busy',
    AGENT_TOKEN: 'token',
    KUBE_API_URL: 'http://127.0.0.1:1',
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    ...env,
  });

t.test('a busy PORT stops the agent with a configuration error naming PORT, without a stack', async (t) => {
  const port = await occupiedPort(t);
  const { code, stderr } = await runAgent(t, { PORT: String(port) });
  t.equal(code, 1, 'exit code 1');
  t.equal(stderr.trim(), `tunnel-agent: invalid configuration: PORT: 127.0.0.1:${port} is already in use`);
  t.notMatch(stderr, /\n\s+at /, 'no stack trace');
});

t.test('a busy METRICS_PORT is named as METRICS_PORT', async (t) => {
  const port = await occupiedPort(t);
  const { code, stderr } = await runAgent(t, { METRICS_PORT: String(port) });
  t.equal(code, 1);
  t.equal(stderr.trim(), `tunnel-agent: invalid configuration: METRICS_PORT: 127.0.0.1:${port} is already in use`);
});
