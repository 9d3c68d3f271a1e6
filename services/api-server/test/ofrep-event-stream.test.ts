import t from 'tap';
import { createServer, get } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStream } from '../src/ofrep/event-stream.js';
import { until } from './helper.js';

type Tap = { teardown(fn: () => unknown): void };

/** A bare HTTP server whose one route is an EventStream, and a raw client reading it. */
async function streamPair(
  t: Tap,
  heartbeatMs: number,
): Promise<{ server: EventStream; client: IncomingMessage; text: () => string }> {
  let stream: EventStream | undefined;
  const http = createServer((_req, res) => {
    stream = new EventStream(res, { heartbeatMs, headers: { 'x-request-id': 'r-1' } });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  const request = get(`http://127.0.0.1:${(http.address() as AddressInfo).port}/`, { agent: false });
  request.on('error', () => {});
  t.teardown(() => request.destroy());
  const client = await new Promise<IncomingMessage>((resolve) => request.once('response', resolve));
  let received = '';
  client.setEncoding('utf8');
  client.on('data', (chunk: string) => (received += chunk));
  const server = await until('the server side', () => stream, 1000, 1);
  return { server, client, text: () => received };
}

t.test('the stream opens with SSE headers and a comment, so proxies pass it through at once', async (t) => {
  const { client, text } = await streamPair(t, 60_000);
  t.equal(client.headers['content-type'], 'text/event-stream; charset=utf-8');
  t.equal(client.headers['cache-control'], 'no-cache, no-transform');
  t.equal(client.headers['x-accel-buffering'], 'no');
  t.equal(client.headers['x-request-id'], 'r-1');
  await until('the opening comment', () => (text() === ': OFREP event stream\n\n' ? true : undefined), 1000, 1);
  t.pass('opening comment');
});

t.test('an idle stream sends a heartbeat comment every interval', async (t) => {
  const { text } = await streamPair(t, 25);
  const started = performance.now();
  await until(
    'three heartbeats',
    () => ((text().match(/^: heartbeat\n\n/gm) ?? []).length >= 3 ? true : undefined),
    2000,
    5,
  );
  t.ok(performance.now() - started >= 50, 'not faster than the interval');
});

t.test('an event has an id, event: message and one JSON data line, and ids increase', async (t) => {
  const { server, text } = await streamPair(t, 60_000);
  server.send({ type: 'refetchEvaluation' });
  server.send({ type: 'refetchEvaluation' });
  const events = await until(
    'two events',
    () => {
      const found = [...text().matchAll(/id: ([0-9a-f]{8})-(\d+)\nevent: message\ndata: (.*)\n\n/g)];
      return found.length === 2 ? found : undefined;
    },
    1000,
    1,
  );
  t.same(
    events.map((e) => JSON.parse(e[3]!)),
    [{ type: 'refetchEvaluation' }, { type: 'refetchEvaluation' }],
  );
  t.equal(events[0]![1], events[1]![1], 'same process prefix');
  t.equal(Number(events[1]![2]), Number(events[0]![2]) + 1);
});

t.test('a comment cannot inject an event', async (t) => {
  const { server, text } = await streamPair(t, 60_000);
  server.comment('x\n\ndata: {"type":"refetchEvaluation"}');
  await until('the comment', () => (text().includes(': x data:') ? true : undefined), 1000, 1);
  t.notMatch(text(), /^data:/m);
});

t.test('end() closes the connection and runs the close listeners once', async (t) => {
  const { server, client } = await streamPair(t, 60_000);
  let closes = 0;
  server.onClose(() => (closes += 1));
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  await server.end();
  await ended;
  t.equal(closes, 1);
  t.ok(server.closed);
  server.send({ type: 'refetchEvaluation' });
  server.onClose(() => (closes += 1));
  t.equal(closes, 2, 'a listener added after the close runs at once');
});

t.test('a client that disconnects closes the stream on the server', async (t) => {
  const { server, client } = await streamPair(t, 60_000);
  let closed = false;
  server.onClose(() => (closed = true));
  client.destroy();
  await until('the server to notice', () => (closed ? true : undefined), 1000, 1);
  t.ok(server.closed);
});
