import net from 'node:net';
import t from 'tap';
import type { Test } from 'tap';
import { buildAgentApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

/** Polls `check` until it answers, within a deadline. */
async function until<T>(check: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The agent's health port on a free port; nothing listens on port 1, so the agent only dials and backs off
 * meanwhile.
 */
async function healthPort(t: Test, env: Record<string, string> = {}): Promise<number> {
  const nowhere = 'http://127.0.0.1:1';
  const config = loadConfig({
    PROXY_TUNNEL_URL: nowhere,
    CLUSTER_ID: 'c-health',
    AGENT_TOKEN: 'token',
    KUBE_API_URL: nowhere,
    ...env,
  });
  const agent = await buildAgentApp(config, false);
  t.teardown(() => agent.close());
  await agent.app.listen({ port: 0, host: '127.0.0.1' });
  return (agent.app.server.address() as net.AddressInfo).port;
}

t.test('a client that stalls mid-headers is cut off within HTTP_HEADERS_TIMEOUT', async (t) => {
  const port = await healthPort(t, { HTTP_HEADERS_TIMEOUT: '500ms' });
  const { ms, answer } = await new Promise<{ ms: number; answer: string }>((resolve) => {
    let answer = '';
    let sentAt = 0;
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      sentAt = Date.now();
      socket.write('GET /readyz HTTP/1.1\r\nhost: agent\r\nuser-agent: kube-pro');
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ ms: Date.now() - sentAt, answer }));
  });
  t.comment(`cut off ${ms} ms after the partial request`);
  t.ok(ms >= 400 && ms < 1500, `within the 500 ms bound and Node's check interval (${ms} ms)`);
  t.match(answer, /^HTTP\/1\.1 408 [^]*content-type: application\/problem\+json/i, 'with a 408 problem');
});

t.test('an unknown path is a 404 problem, and a path that cannot be decoded a 400 problem', async (t) => {
  const port = await healthPort(t);
  const res = await fetch(`http://127.0.0.1:${port}/nope`);
  t.equal(res.status, 404);
  t.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  t.match(await res.json(), { status: 404, title: 'Not Found', detail: 'No route GET /nope' });
  const bad = await fetch(`http://127.0.0.1:${port}/%zz`);
  t.equal(bad.status, 400);
  t.equal(bad.headers.get('content-type'), 'application/problem+json; charset=utf-8');
});

t.test('while the tunnel is down, /readyz is a 503 problem that says why', async (t) => {
  const port = await healthPort(t);
  const res = await until(async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/readyz`);
    const body = (await answer.json()) as { detail: string };
    return body.detail.includes('its last failure') ? { answer, body } : undefined;
  });
  t.equal(res.answer.status, 503);
  t.equal(res.answer.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  t.match(res.body, {
    status: 503,
    title: 'Service Unavailable',
    connected: false,
    detail:
      /^the tunnel to the cluster proxy is not connected after \d+ attempts?; its last failure: connect ECONNREFUSED/,
  });
});

t.test('/openapi.json describes every route of the port', async (t) => {
  const port = await healthPort(t);
  const res = await fetch(`http://127.0.0.1:${port}/openapi.json`);
  t.equal(res.status, 200);
  const doc = (await res.json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  t.same(Object.keys(doc.paths).sort(), ['/healthz', '/openapi.json', '/readyz'], 'metrics are on METRICS_PORT');
  t.ok(doc.paths['/readyz']?.get?.responses['503'], 'the not-ready answer is documented');
});
