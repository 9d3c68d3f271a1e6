import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import t from 'tap';
import { sendHttp2 } from '@gsp/service-kit/testing';
import { CONNECT_PATH } from '../src/tunnel/port.js';
import { startStack } from './stack.js';
import type { Stack } from './stack.js';

interface Answer {
  status: number;
  type: string | undefined;
  body: Record<string, unknown>;
}

/** A raw request to the proxy's kubectl port (no token), trusting its certificate. */
function call(stack: Stack, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // `path` goes out as written: `new URL` would re-encode a malformed escape.
    const { hostname, port } = new URL(stack.proxyUrl);
    const req = https.request({ hostname, port, path, ca: stack.ca, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('the proxy answers bad input with 4xx, kubectl paths as Status and the rest as problem+json', async (t) => {
  const stack = await startStack(t, { clusters: 0 });

  t.test('a cluster id with malformed percent-encoding is a 400 Status, before any token is asked for', async (t) => {
    for (const id of ['%zz', '%', 'abc%e0%a4']) {
      const res = await call(stack, `/clusters/${id}/api`);
      t.equal(res.status, 400, id);
      t.equal(res.type, 'application/json');
      const message = /not valid percent-encoding/;
      t.match(res.body, { kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest', message });
    }
  });

  t.test(
    'a Kubernetes path with a malformed percent-encoding is a 400 Status, as kube-apiserver refuses it, ' +
      'before any token is asked for',
    async (t) => {
      for (const path of ['/api/v1/namespaces/%zz', '/api/%', '/api/v1/%E0%A4%A']) {
        const res = await call(stack, `/clusters/some-cluster${path}`);
        t.equal(res.status, 400, path);
        t.equal(res.type, 'application/json');
        t.match(res.body, { kind: 'Status', code: 400, reason: 'BadRequest', message: /malformed percent-encoding/ });
      }
    },
  );

  t.test('an unknown path is a 404 problem', async (t) => {
    const res = await call(stack, '/nope?x=1');
    t.equal(res.status, 404);
    t.equal(res.type, 'application/problem+json; charset=utf-8');
    t.match(res.body, {
      status: 404,
      title: 'Not Found',
      detail: 'No route GET /nope',
      type: 'urn:gsp:problem:not-found',
    });
  });

  t.test('a path Fastify cannot decode is a 400 problem', async (t) => {
    const res = await call(stack, '/%zz');
    t.equal(res.status, 400);
    t.equal(res.type, 'application/problem+json; charset=utf-8');
    t.match(res.body, { status: 400, type: 'urn:gsp:problem:bad-request' });
  });

  t.test('an upgrade to a path that is not a cluster is a 404 problem', async (t) => {
    const { hostname, port } = new URL(stack.proxyUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: hostname, port: Number(port), ca: stack.ca }, () => {
        socket.write('GET /nope HTTP/1.1\r\nhost: proxy\r\nconnection: Upgrade\r\nupgrade: websocket\r\n\r\n');
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    t.match(raw, /^HTTP\/1\.1 404 Not Found\r\n/);
    t.match(raw, /content-type: application\/problem\+json\r\n/);
    t.match(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)), { status: 404, detail: 'No route GET /nope' });
  });

  t.test('the health endpoints still answer', async (t) => {
    t.match(await call(stack, '/healthz'), { status: 200, body: { status: 'ok' } });
  });

  t.test('the tunnel port answers what is not a tunnel with a problem', async (t) => {
    const session = http2.connect(stack.tunnelUrl);
    session.on('error', () => undefined);
    t.teardown(() => session.close());
    const cases: { method: string; path: string; headers: Record<string, string>; status: number; detail: RegExp }[] = [
      {
        method: 'GET',
        path: '/nope',
        headers: {},
        status: 404,
        detail: /^No route GET \/nope: this port serves tunnel agents/,
      },
      { method: 'GET', path: CONNECT_PATH, headers: {}, status: 405, detail: /only POST/ },
      {
        method: 'POST',
        path: CONNECT_PATH,
        headers: { 'content-type': 'application/json' },
        status: 415,
        detail: /application\/connect\+proto/,
      },
    ];
    for (const { status, detail, ...req } of cases) {
      const res = await sendHttp2(session, { ...req, route: '' });
      t.equal(res.status, status, `${req.method} ${req.path}`);
      t.equal(res.headers['content-type'], 'application/problem+json');
      t.match(JSON.parse(res.body), { status, detail });
    }
  });

  t.test('each port describes what it serves in /openapi.json', async (t) => {
    const kubectlPort = await call(stack, '/openapi.json');
    t.equal(kubectlPort.status, 200);
    const paths = kubectlPort.body.paths as Record<string, Record<string, { security?: unknown[] }>>;
    t.same(Object.keys(paths).sort(), ['/clusters/{clusterId}/{path}', '/healthz', '/openapi.json', '/readyz']);
    t.same(
      paths['/clusters/{clusterId}/{path}']?.get?.security,
      [{ kubeconfigToken: [] }],
      'kubectl requests need a kubeconfig token',
    );
    const session = http2.connect(stack.tunnelUrl);
    session.on('error', () => undefined);
    t.teardown(() => session.close());
    const tunnelPort = await sendHttp2(session, { method: 'GET', path: '/openapi.json', headers: {}, route: '' });
    t.equal(tunnelPort.status, 200);
    const doc = JSON.parse(tunnelPort.body) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    t.same(doc.paths[CONNECT_PATH]?.post?.security, [{ agentToken: [] }], 'a tunnel needs an agent token');
  });
});
