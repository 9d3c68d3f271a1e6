import { spawn } from 'node:child_process';
import https from 'node:https';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import t from 'tap';
import type { Test } from 'tap';
import { Code } from '@connectrpc/connect';
import { rawTunnel } from './raw-tunnel.js';
import { bodyOf, fakeApiServer, responseTo, startStack, until } from './stack.js';
import type { Stack } from './stack.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

/** A GET sent now; resolves with its answer once complete. */
function send(request: ClientRequest): Promise<{ res: IncomingMessage; body: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    request.on('response', (res) => {
      const { socket } = res;
      const body = bodyOf(res);
      res.on('end', () => resolve({ res, body: body(), socket }));
    });
    request.on('error', reject);
    request.end();
  });
}

const refused = (url: string) =>
  new Promise<string>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });

async function drainStack(t: Test, grace: string) {
  const stack = await startStack(t, { proxyEnv: { PRESENCE_LEASE: '900ms', PROXY_REPLICA_ID: 'r1' } });
  const [cluster] = stack.clusters;
  await cluster!.agent.stop(); // raw tunnels stand for the agent
  const agentOf = { clusterId: cluster!.id, agentToken: cluster!.agentToken };
  const r2 = await stack.startReplica({ PROXY_REPLICA_ID: 'r2', DRAIN_GRACE: grace });
  const atR2 = rawTunnel(t, r2.tunnelUrl, agentOf);
  await atR2.hello;
  const db = new pg.Pool({ connectionString: stack.api.databaseUrl, max: 2 });
  t.teardown(() => db.end());
  return { stack, cluster: cluster!, agentOf, r2, atR2, db, token: await stack.proxyToken(cluster!.id) };
}

const draining = async (db: pg.Pool, id: string) =>
  (await db.query<{ draining: boolean }>('SELECT draining FROM proxy_replicas WHERE replica_id = $1', [id])).rows[0]
    ?.draining;

t.test('a draining replica turns unready, is counted out, tells its agents and finishes its request', async (t) => {
  const { stack, cluster, agentOf, r2, atR2, db, token } = await drainStack(t, '10s');
  await until('r1 to count r2', () => (stack.proxy.replicas.count === 2 ? true : undefined), 3000);
  const atR1 = rawTunnel(t, stack.tunnelUrl, agentOf);
  t.match(await atR1.hello, { replicaCount: 2 });
  const keepAlive = new https.Agent({ keepAlive: true, ca: stack.ca });
  t.teardown(() => keepAlive.destroy());
  const request = (path: string, agent: https.Agent) =>
    https.request(`${r2.url}/clusters/${cluster.id}${path}`, { agent, headers: { authorization: `Bearer ${token}` } });

  // One connection left idle, one with a request in flight.
  const idle = send(request('/api/v1/namespaces/a', keepAlive));
  const first = await atR2.frame('the first request', (f) => f.kind.case === 'open');
  atR2.answer(first.streamId, 200, 'a');
  const idleSocket = (await idle).socket;
  const idleClosed = new Promise<void>((resolve) => idleSocket.once('close', () => resolve()));
  const busy = new https.Agent({ keepAlive: true, ca: stack.ca });
  t.teardown(() => busy.destroy());
  const inFlight = send(request('/api/v1/namespaces/b', busy));
  const open = await atR2.frame(
    'the request in flight',
    (f) => f.kind.case === 'open' && f.streamId !== first.streamId,
  );

  const started = performance.now();
  const drained = r2.proxy.drain();
  t.match((await r2.proxy.app.inject('/readyz')).statusCode, 503, '/readyz fails at once');
  t.match((await r2.proxy.app.inject('/readyz')).json(), { status: 'draining' });
  t.equal(await refused(r2.url), 'ECONNREFUSED', 'no new kubectl connection is accepted');
  await idleClosed;
  t.pass('the idle keep-alive connection is closed');
  await atR2.frame('drain', (f) => f.streamId === 0 && f.kind.case === 'drain');
  const told = Math.round(performance.now() - started);
  t.equal(await draining(db, 'r2'), true, 'its proxy_replicas row says draining');
  t.match(await (await fetch(r2.metricsUrl)).text(), /^gsp_proxy_draining 1$/m);
  await atR1.frame('the count without r2', (f) => f.kind.case === 'replicas' && f.kind.value.count === 1);
  const countedOut = Math.round(performance.now() - started);

  const late = rawTunnel(t, r2.tunnelUrl, agentOf);
  const refusal = await late.ended;
  t.equal(refusal?.code, Code.Unavailable, 'a new tunnel is refused unavailable');
  t.match(refusal?.rawMessage, 'the proxy replica r2 is draining');

  t.equal(r2.proxy.registry.all().length, 1, 'the tunnel stays while a request is in flight');
  const answered = performance.now();
  atR2.answer(open.streamId, 200, 'b');
  const { res, body } = await inFlight;
  t.equal(res.statusCode, 200);
  t.equal(body, 'b', 'the request in flight finished');
  t.equal(res.headers.connection, 'close', 'with Connection: close');
  await drained;
  const closed = Math.round(performance.now() - answered);
  t.equal(await atR2.ended, undefined, 'then the tunnel is closed');
  t.equal(await draining(db, 'r2'), undefined, 'and the row deleted');
  t.comment(
    `drain: agents told in ${told} ms, counted out by r1 in ${countedOut} ms, ` +
      `closed ${closed} ms after the last answer`,
  );
});

t.test('DRAIN_GRACE bounds the drain: what is still in flight then is cut', async (t) => {
  const { cluster, r2, atR2, token } = await drainStack(t, '300ms');
  const stuck = send(
    https.request(`${r2.url}/clusters/${cluster.id}/api/v1/namespaces`, {
      agent: false,
      rejectUnauthorized: false,
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  await atR2.frame('the request', (f) => f.kind.case === 'open');
  const started = performance.now();
  await r2.proxy.drain();
  const ms = Math.round(performance.now() - started);
  t.ok(ms >= 300 && ms < 2000, `closed ${ms} ms after the drain began (grace 300 ms)`);
  const { res, body } = await stuck;
  t.equal(res.statusCode, 503);
  t.match(JSON.parse(body), { kind: 'Status', message: 'the proxy is shutting down' });
});

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

t.test('SIGTERM drains the proxy process: its agent is told, the request in flight finishes, it exits 0', async (t) => {
  const stack: Stack = await startStack(t);
  const [cluster] = stack.clusters;
  await cluster!.agent.stop();
  const child = spawn(process.execPath, nodeEntry(server), {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: stack.api.databaseUrl,
      API_SERVER_URL: stack.apiUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      TUNNEL_PORT: '0',
      METRICS_PORT: '0',
      PROXY_REPLICA_ID: 'process',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL'));
  const [url, tunnelUrl] = await until(
    'the proxy process to listen',
    () => {
      const kubectl = /"url":"(https:\/\/127\.0\.0\.1:\d+)"/.exec(output)?.[1];
      const tunnel = /"tunnelUrl":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output)?.[1];
      return kubectl && tunnel ? [kubectl, tunnel] : undefined;
    },
    30_000,
    20,
  );
  const tunnel = rawTunnel(t, tunnelUrl, { clusterId: cluster!.id, agentToken: cluster!.agentToken });
  await tunnel.hello;
  const token = await stack.proxyToken(cluster!.id);
  const inFlight = send(
    https.request(`${url}/clusters/${cluster!.id}/api/v1/namespaces`, {
      agent: false,
      rejectUnauthorized: false,
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  const open = await tunnel.frame('the request', (f) => f.kind.case === 'open');

  const started = performance.now();
  child.kill('SIGTERM');
  await tunnel.frame('drain', (f) => f.streamId === 0 && f.kind.case === 'drain');
  const told = Math.round(performance.now() - started);
  tunnel.answer(open.streamId, 200, 'done');
  const { res, body } = await inFlight;
  t.equal(res.statusCode, 200);
  t.equal(body, 'done');
  t.equal(await exited, 0, 'the process exits 0 once nothing is in flight');
  t.equal(await tunnel.ended, undefined, 'its tunnel closed cleanly');
  t.comment(`SIGTERM: drain frame after ${told} ms, exit ${Math.round(performance.now() - started)} ms after SIGTERM`);
});

t.test('a watch through a draining replica runs on until DRAIN_GRACE, then ends as a cut watch does', async (t) => {
  const stack = await startStack(t, { clusters: 0, proxyEnv: { DRAIN_GRACE: '500ms' } });
  const watches = new Set<ServerResponse>();
  const event = (name: string) =>
    `${JSON.stringify({ type: 'ADDED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name } } })}\n`;
  const kubeUrl = await fakeApiServer(t, (_req, res) => {
    watches.add(res);
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.write(event('before'));
  });
  t.teardown(() => {
    for (const res of watches) res.destroy();
  });
  const { id, token } = await stack.addCluster('watched', kubeUrl);
  const res = await responseTo(stack.proxyRequest(id, '/api/v1/namespaces/default/pods?watch=true', token));
  const body = bodyOf(res);
  const ended = new Promise<boolean>((resolve) => res.on('close', () => resolve(res.complete)));
  await until('the first event', () => (body().includes('before') ? true : undefined));

  const started = performance.now();
  const drained = stack.proxy.drain();
  for (const watch of watches) watch.write(event('during'));
  await until('an event sent during the drain', () => (body().includes('during') ? true : undefined));
  t.pass('the watch still streams while the replica drains');
  t.ok(await ended, 'then it ends whole, as kube-apiserver ends a watch');
  const ms = Math.round(performance.now() - started);
  const last = JSON.parse(body().trim().split('\n').at(-1)!);
  t.match(last, { type: 'ERROR', object: { kind: 'Status', code: 503, message: 'the proxy is shutting down' } });
  t.ok(ms >= 500, `cut ${ms} ms after the drain began (DRAIN_GRACE 500 ms)`);
  await drained;
});
