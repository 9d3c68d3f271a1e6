import t from 'tap';
import type { Test } from 'tap';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { Counter, Histogram, Registry } from 'prom-client';
import { createServiceMetrics, DURATION_BUCKETS, httpTimeouts, serveMetrics } from '@gsp/service-kit';
import type { HttpTimeouts } from '@gsp/service-kit';

const source = { metrics: async () => 'gsp_up 1\n', contentType: 'text/plain; version=0.0.4; charset=utf-8' };

/** The metrics server on a free port, closed with the test; resolves with its host and port. */
async function metricsPort(t: Test, http?: HttpTimeouts): Promise<{ url: string; port: number }> {
  const served = await serveMetrics(source, 0, '127.0.0.1', http === undefined ? {} : { http });
  t.teardown(() => served.close());
  return { url: served.url, port: Number(new URL(served.url).port) };
}

/** Resolves when `socket` closes, with everything it received; rejects past `ms`. */
function closed(socket: Socket, ms: number): Promise<string> {
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error(`the socket was still open after ${ms} ms`)), ms);
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve(answer);
    });
  });
}

t.test(
  'a client that sends its headers byte by byte is cut off at HTTP_HEADERS_TIMEOUT, with a 408 problem',
  async (t) => {
    const { port } = await metricsPort(t, httpTimeouts({ HTTP_HEADERS_TIMEOUT: '500ms' }));
    const startedAt = Date.now();
    let sent = 0;
    const socket = connect(port, '127.0.0.1');
    // Each byte arrives well within any idle timeout; only a bound on the whole head stops this client.
    const trickle = setInterval(() => {
      if (socket.writable)
        socket.write('GET /metrics HTTP/1.1\r\nhost: x\r\nx-slow: '.charAt(sent) || 'a', () => (sent += 1));
    }, 20);
    t.teardown(() => clearInterval(trickle));
    const answer = await closed(socket, 5000);
    const ms = Date.now() - startedAt;
    clearInterval(trickle);
    t.comment(`cut off after ${ms} ms and ${sent} bytes`);
    t.ok(ms >= 450 && ms < 1500, `within the 500 ms bound and the server's check interval (${ms} ms)`);
    t.ok(sent >= 10, `the client was still sending when cut off (${sent} bytes)`);
    t.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    t.match(answer, /content-type: application\/problem\+json/i);
  },
);

t.test('an idle kept-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT', async (t) => {
  const { port } = await metricsPort(t, httpTimeouts({ HTTP_KEEP_ALIVE_TIMEOUT: '200ms' }));
  const socket = connect(port, '127.0.0.1', () => socket.write('GET /metrics HTTP/1.1\r\nhost: x\r\n\r\n'));
  const startedAt = Date.now();
  const answer = await closed(socket, 5000);
  const ms = Date.now() - startedAt;
  t.match(answer, /^HTTP\/1\.1 200 OK\r\n[^]*gsp_up 1\n/, 'the scrape was answered');
  // Node keeps the socket up to a second past the timeout it advertises, so clients never race it; the default is 72 s.
  t.ok(ms >= 150 && ms < 2500, `then closed after ${ms} ms idle (keep-alive timeout 200 ms)`);
});

t.test('a scrape is answered, and anything else is a problem', async (t) => {
  const { url } = await metricsPort(t);
  const scrape = await fetch(`${url}?name[]=gsp_up`);
  t.equal(scrape.status, 200);
  t.equal(scrape.headers.get('content-type'), source.contentType);
  t.equal(await scrape.text(), 'gsp_up 1\n');

  const other = await fetch(url.replace('/metrics', '/api'));
  t.equal(other.status, 404);
  t.equal(other.headers.get('content-type'), 'application/problem+json');
  t.match(await other.json(), { status: 404, title: 'Not Found', detail: 'only GET /metrics is served here' });

  const post = await fetch(url, { method: 'POST', body: '{}' });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET');
  t.match(await post.json(), { status: 405, type: 'urn:gsp:problem:method-not-allowed' });
});

t.test('request latency labelled by route only reads as prom-client would write it', async (t) => {
  const ours = createServiceMetrics('gsp_test');
  const requests = ours.httpRequests({ requestsHelp: 'requests', durationHelp: 'latency', durationBy: 'route' });
  const twin = new Registry();
  const counter = new Counter({
    name: 'gsp_test_requests_total',
    help: 'requests',
    labelNames: ['method', 'route', 'code'],
    registers: [twin],
  });
  const histogram = new Histogram({
    name: 'gsp_test_request_duration_seconds',
    help: 'latency',
    labelNames: ['route'],
    buckets: [...DURATION_BUCKETS],
    registers: [twin],
  });
  const answered = [
    ['GET', '/a', 200, 0.001],
    ['POST', '/a', 201, 0.3],
    ['GET', '/b', 404, 3],
    ['GET', '/a', 200, 0.0025],
  ] as const;
  for (const [method, route, code, seconds] of answered) {
    requests.record(method, route, code, seconds);
    counter.inc({ method, route, code });
    histogram.observe({ route }, seconds);
  }
  const lines = async (registry: Registry) =>
    (await registry.metrics())
      .split('\n')
      .filter((line) => line.includes('gsp_test_'))
      .sort();
  t.same(await lines(ours.registry), await lines(twin));
});

t.test("a service's own metrics carry its prefix, on a registry of its own", async (t) => {
  const a = createServiceMetrics('gsp_a');
  const b = createServiceMetrics('gsp_a');
  a.counter('things_total', 'things', ['kind']).inc({ kind: 'x' });
  a.gauge('level', 'level', function () {
    this.set(7);
  });
  t.match(await a.registry.metrics(), /gsp_a_things_total\{kind="x"\} 1/);
  t.match(await a.registry.metrics(), /gsp_a_level 7/);
  t.match(await a.registry.metrics(), /process_cpu_user_seconds_total/, "Node's default metrics");
  t.notMatch(await b.registry.metrics(), /gsp_a_things_total/);
});
