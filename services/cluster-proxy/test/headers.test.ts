import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import t from 'tap';
import type { Test } from 'tap';
import { forwardRequest, forwardUpgrade } from '../src/kubectl/forward.js';
import { createMetrics } from '../src/metrics.js';
import type { StreamHandlers, Tunnel, TunnelStream } from '../src/tunnel/tunnel.js';
import { fakeApiServer, responseTo, startStack } from './stack.js';

const pairs = (raw: string[]): [string, string][] =>
  raw.flatMap((v, i) => (i % 2 ? [] : [[v.toLowerCase(), raw[i + 1] as string] as [string, string]]));

t.test(
  'headers cross the tunnel as sent: repeats and order kept, hop headers and credentials dropped, ' +
    'the caller impersonated',
  async (t) => {
    let seen: string[] = [];
    const apiUrl = await fakeApiServer(t, (req, res) => {
      seen = req.rawHeaders;
      res.writeHead(200, [
        'Content-Type',
        'application/json',
        'Warning',
        '299 - "first"',
        'X-Trace',
        'a',
        'Warning',
        '299 - "second"',
        'Keep-Alive',
        'timeout=5',
        'Connection',
        'keep-alive',
      ]);
      res.end('{}');
    });
    const stack = await startStack(t, { clusters: 0 });
    const { id, token } = await stack.addCluster('echo', apiUrl);

    const req = stack.proxyRequest(id, '/api/v1/namespaces', token);
    req.setHeader('Accept', 'application/json');
    req.setHeader('X-Repeat', ['one', 'two']);
    req.setHeader('Impersonate-Group', 'system:masters');
    const res = await responseTo(req);
    res.resume();
    t.equal(res.statusCode, 200);
    const answered = pairs(res.rawHeaders);
    t.same(
      answered.filter(([n]) => n === 'warning' || n === 'x-trace').map(([, v]) => v),
      ['299 - "first"', 'a', '299 - "second"'],
      'the API server’s headers reach kubectl in order, repeats kept',
    );
    // The proxy's own connection to kubectl has its own Keep-Alive; the API server's stays behind.
    t.notOk(
      answered.some(([n, v]) => n === 'keep-alive' && v === 'timeout=5'),
      "the API server's hop headers stay behind",
    );

    const sent = pairs(seen);
    t.same(
      sent.filter(([n]) => n === 'x-repeat').map(([, v]) => v),
      ['one', 'two'],
      'repeated request headers arrive, in order',
    );
    t.ok(
      sent.some(([n, v]) => n === 'impersonate-user' && v === 'olivia'),
      'the caller is impersonated',
    );
    t.notOk(
      sent.some(([n]) => n === 'impersonate-group'),
      "the caller's own impersonation is dropped",
    );
    t.notOk(
      sent.some(([n, v]) => n === 'authorization' && v.includes(token)),
      'the kubeconfig token never reaches the cluster',
    );
  },
);

/** Sends a GET with `forged` headers through the proxy and the agent; resolves with the headers the cluster saw. */
async function headersAtCluster(t: Test, name: string, forged: [string, string][]): Promise<[string, string][]> {
  let seen: string[] = [];
  const apiUrl = await fakeApiServer(t, (req, res) => {
    seen = req.rawHeaders;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  const stack = await startStack(t, { clusters: 0 });
  const { id, token } = await stack.addCluster(name, apiUrl);
  const req = stack.proxyRequest(id, '/api/v1/namespaces', token);
  for (const [header, value] of forged) req.setHeader(header, value);
  const res = await responseTo(req);
  res.resume();
  t.equal(res.statusCode, 200);
  return pairs(seen);
}

t.test("a caller's impersonation, request-header identity and credentials never reach the cluster", async (t) => {
  // Each is read by kube-apiserver as who the caller is (Impersonate-*, and X-Remote-* under
  // request-header authentication) or as a credential of its own.
  const forged: [string, string][] = [
    ['Impersonate-Group', 'system:masters'],
    ['Impersonate-Uid', '0'],
    ['Impersonate-Extra-scopes', 'all'],
    ['X-Remote-User', 'admin'],
    ['X-Remote-Group', 'system:masters'],
    ['X-Remote-Extra-foo', 'bar'],
    ['Proxy-Authorization', 'Basic YWRtaW46YWRtaW4='],
  ];
  const sent = await headersAtCluster(t, 'spoof', forged);
  const impersonation = sent.filter(([n]) => n.startsWith('impersonate-'));
  t.same(impersonation, [['impersonate-user', 'olivia']], 'exactly one impersonation header: the caller');
  t.same(
    sent.filter(([n]) => n.startsWith('x-remote-')),
    [],
    'no request-header identity',
  );
  t.same(
    sent.filter(([n]) => n === 'proxy-authorization'),
    [],
    'no proxy credentials',
  );
  const credentials = sent.filter(([n]) => n === 'authorization');
  t.same(credentials, [['authorization', 'Bearer agent-own-credential']], "only the agent's own credential");
});

t.test(
  "a caller's forwarding chain never reaches the cluster: X-Forwarded-For is the address the proxy accepted",
  async (t) => {
    // kube-apiserver records each address in X-Forwarded-For, then X-Real-Ip, as the audit's sourceIPs.
    const forged: [string, string][] = [
      ['X-Forwarded-For', '203.0.113.7, 198.51.100.1'],
      ['X-Real-Ip', '203.0.113.8'],
      ['Forwarded', 'for=203.0.113.9;host=evil.example'],
      ['Via', '1.1 evil-proxy'],
      ['X-Forwarded-Host', 'evil.example'],
      ['X-Forwarded-Proto', 'http'],
      ['X-Forwarded-Port', '80'],
    ];
    const sent = await headersAtCluster(t, 'forwarded', forged);
    const names = new Set(forged.map(([name]) => name.toLowerCase()));
    t.same(
      sent.filter(([n]) => names.has(n)),
      [['x-forwarded-for', '127.0.0.1']],
      'only the X-Forwarded-For the proxy wrote: the address kubectl connected from',
    );
    t.notOk(
      sent.some((pair) => pair.some((v) => /203\.0\.113|198\.51\.100|evil/.test(v))),
      'nothing the caller forged arrived',
    );
  },
);

t.test('an upgrade with headers named like Object.prototype members reaches the cluster as sent', async (t) => {
  // The agent once gathered an upgrade's headers on a plain object, where `constructor` already "existed".
  let seen: string[] = [];
  const cluster = http.createServer();
  cluster.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    seen = req.rawHeaders;
    socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
  });
  await new Promise<void>((resolve) => cluster.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    cluster.closeAllConnections();
    cluster.close();
  });
  const stack = await startStack(t, { clusters: 0 });
  const { id, token } = await stack.addCluster(
    'prototype',
    `http://127.0.0.1:${(cluster.address() as AddressInfo).port}`,
  );

  const req = stack.proxyRequest(id, '/api/v1/namespaces/default/pods/p/exec?command=sh', token);
  req.setHeader('Connection', 'Upgrade');
  req.setHeader('Upgrade', 'websocket');
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) req.setHeader(name, `v-${name}`);
  const status = await new Promise<number>((resolve, reject) => {
    req.on('upgrade', (res: http.IncomingMessage, socket: Duplex) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => resolve(res.statusCode ?? 0));
    req.on('error', reject);
    req.end();
  });
  t.equal(status, 101, 'the upgrade went through');
  t.same(
    pairs(seen).filter(([n]) => ['constructor', '__proto__', 'tostring', 'hasownproperty'].includes(n)),
    [
      ['constructor', 'v-constructor'],
      ['__proto__', 'v-__proto__'],
      ['tostring', 'v-toString'],
      ['hasownproperty', 'v-hasOwnProperty'],
    ],
    'each arrived once, with the value sent',
  );
});

/** A stand-in tunnel that records whether a stream was opened and fails it at once. */
function recordingTunnel(): { tunnel: Tunnel; opened: string[] } {
  const opened: string[] = [];
  const open = (...args: unknown[]): TunnelStream => {
    opened.push(args[2] as string);
    queueMicrotask(() => (args.at(-1) as StreamHandlers).onError({ code: 502, message: 'no agent here' }));
    return { write: () => true, whenDrained() {}, end() {}, cancel() {}, pause() {}, resume() {} };
  };
  return { tunnel: { open } as unknown as Tunnel, opened };
}

const INJECTED = 'mallory-x\r\nImpersonate-Group: system:masters';

t.test('a request whose headers cannot cross the tunnel gets a 400 Status, and no stream is opened', async (t) => {
  const { tunnel, opened } = recordingTunnel();
  const metrics = createMetrics(() => 0);
  const server = http.createServer((req, res) => forwardRequest(tunnel, req, res, '/api', INJECTED, metrics));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
  t.equal(res.status, 400);
  t.equal(res.headers.get('content-type'), 'application/json');
  const body: unknown = await res.json();
  t.match(body, { kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest', message: /impersonate-user/ });
  t.same(opened, [], 'nothing reached the tunnel');
  t.match(await metrics.registry.getSingleMetricAsString('gsp_proxy_requests_total'), /kind="request",code="400"/);
});

t.test('an upgrade whose headers cannot cross the tunnel gets a 400 Status, and no stream is opened', async (t) => {
  const { tunnel, opened } = recordingTunnel();
  const metrics = createMetrics(() => 0);
  const server = http.createServer();
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
    forwardUpgrade(tunnel, req, socket, head, '/api', INJECTED, metrics),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const headers = { connection: 'Upgrade', upgrade: 'websocket' };
    const req = http.request({ port, host: '127.0.0.1', path: '/api', headers });
    req.on('response', resolve);
    req.on('upgrade', () => reject(new Error('upgraded')));
    req.on('error', reject);
    req.end();
  });
  let body = '';
  for await (const chunk of res) body += String(chunk);
  t.equal(res.statusCode, 400);
  t.match(JSON.parse(body), { kind: 'Status', code: 400, reason: 'BadRequest' });
  t.same(opened, [], 'nothing reached the tunnel');
  t.match(await metrics.registry.getSingleMetricAsString('gsp_proxy_requests_total'), /kind="upgrade",code="400"/);
});
