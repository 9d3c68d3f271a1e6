import type http from 'node:http';
import t from 'tap';
import type { Test } from 'tap';
import { fakeApiServer, responseTo, startStack, until } from './stack.js';
import type { Stack } from './stack.js';

/** The most any test here lets through before calling it unbounded. */
const LIMIT = 256 * 1024 * 1024;
/** What the buffers along the way (sockets, tunnel, streams) may hold while a reader stalls. */
const BOUND = 64 * 1024 * 1024;

/**
 * A cluster API server that produces and consumes without end, the way `logs -f` of a chatty
 * pod or a large upload does: `/endless` answers bytes as fast as they are read, `/upload`
 * reads the request body only once `reading` is set, anything else answers `small`.
 */
async function endlessApiServer(t: Test) {
  const state = { written: 0, uploaded: 0, reading: false, uploads: [] as http.IncomingMessage[] };
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const url = await fakeApiServer(t, (req, res) => {
    if (req.url?.startsWith('/endless')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const pump = () => {
        while (!res.destroyed && state.written < LIMIT) {
          state.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    } else if (req.url?.startsWith('/upload')) {
      state.uploads.push(req);
      req.pause();
      req.on('data', (c: Buffer) => (state.uploaded += c.length));
      if (state.reading) req.resume();
    } else res.end('small');
  });
  return {
    state,
    url,
    startReading() {
      state.reading = true;
      for (const req of state.uploads) req.resume();
    },
  };
}

/** Polls `value` until it has not moved for half a second: where a stalled flow settled. */
async function settled(what: string, value: () => number): Promise<number> {
  let last = -1;
  let since = performance.now();
  return until(
    what,
    () => {
      const now = value();
      if (now !== last) {
        last = now;
        since = performance.now();
        return undefined;
      }
      return performance.now() - since >= 500 ? now : undefined;
    },
    20_000,
    50,
  );
}

async function endlessCluster(t: Test, stack: Stack) {
  const upstream = await endlessApiServer(t);
  const { id, token } = await stack.addCluster('endless', upstream.url);
  const request = (path: string, method = 'GET') => stack.proxyRequest(id, path, token, method);
  const small = () => stack.proxyStatus(id, '/small', token);
  return { upstream, request, small };
}

t.test('a client that stops reading holds the cluster back, and no one else', async (t) => {
  const stack = await startStack(t);
  const { upstream, request, small } = await endlessCluster(t, stack);
  const response = await responseTo(request('/endless'));
  t.teardown(() => response.destroy());
  // The client reads nothing: the API server must come to a stop, not fill the proxy or the agent.
  const stalledAt = await settled('the API server to be held back', () => upstream.state.written);
  t.ok(
    stalledAt < BOUND,
    `the API server stopped after ${(stalledAt / 2 ** 20).toFixed(1)} MiB while the client read nothing`,
  );
  t.equal(await small(), 200, 'another request through the same tunnel is answered meanwhile');

  let read = 0;
  response.on('data', (c: Buffer) => (read += c.length));
  await until(
    'the flow to resume',
    () => (read > 8 * 2 ** 20 && upstream.state.written > stalledAt + 8 * 2 ** 20 ? true : undefined),
    20_000,
    20,
  );
  t.pass('reading again lets the answer flow again');
});

t.test('an API server that stops reading an upload holds the client back, and no one else', async (t) => {
  const stack = await startStack(t);
  const { upstream, request, small } = await endlessCluster(t, stack);
  const req = request('/upload', 'POST');
  req.on('error', () => undefined);
  t.teardown(() => req.destroy());
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 'y');
  const pump = () => {
    while (!req.destroyed && sent < LIMIT) {
      sent += chunk.length;
      if (!req.write(chunk)) return void req.once('drain', pump);
    }
  };
  pump();
  const stalledAt = await settled('the client to be held back', () => sent);
  t.ok(
    stalledAt < BOUND,
    `the client could send only ${(stalledAt / 2 ** 20).toFixed(1)} MiB while the API server read nothing`,
  );
  t.equal(await small(), 200, 'another request through the same tunnel is answered meanwhile');

  upstream.startReading();
  await until(
    'the upload to flow again',
    () => (upstream.state.uploaded > 8 * 2 ** 20 && sent > stalledAt + 8 * 2 ** 20 ? true : undefined),
    20_000,
    20,
  );
  t.pass('once the API server reads, the client sends again');
});
