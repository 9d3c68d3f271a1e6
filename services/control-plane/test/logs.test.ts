import http from 'node:http';
import t from 'tap';
import type { Test as Tap } from 'tap';
import type { FastifyInstance } from 'fastify';
import type { KubeLite } from '@gsp/kube-lite';
import {
  BASIC_ADMIN,
  GAME_PROFILE,
  buildWithProfiles,
  createKey,
  kubectl,
  listen,
  postAction,
  readyServer,
  relayedKubeconfig,
  startKube,
  startRelay,
  until,
} from './helper.js';
import type { AuditCapture } from './helper.js';

const PROFILE = {
  ...GAME_PROFILE,
  // The simulated game console's `say` writes `[say] <text>` to the container's log.
  actions: { say: { command: ['say'], timeoutSeconds: 5 } },
};

const setUp = (t: Tap, env: Record<string, string> = {}, kube?: KubeLite) =>
  buildWithProfiles(t, { arena: PROFILE }, { env, ...(kube ? { kube } : {}) });

async function say(app: FastifyInstance, name: string, text: string): Promise<void> {
  const res = await postAction(app, name, 'say', [text]);
  if (res.statusCode !== 200) throw new Error(`say ${text}: ${res.statusCode} ${res.body}`);
}

const logsOf = (app: FastifyInstance, name: string, query = '', headers: Record<string, string> = BASIC_ADMIN) =>
  app.inject({ url: `/api/v1/gameservers/games/${name}/logs${query}`, headers });

const auditOf = (audit: AuditCapture, name: string) =>
  audit.lines().filter((l) => l.path === `/api/v1/gameservers/games/${name}/logs`);

/** A request over a real connection (inject cannot stream), its body collected as it arrives. */
interface Live {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: () => string;
  /** Resolves once the server ended the body; rejects if the connection broke first. */
  ended: Promise<void>;
  /** The client goes away. */
  close: () => void;
}

function open(url: string, path: string, headers: Record<string, string>): Promise<Live> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${url}${path}`, { headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      const ended = new Promise<void>((done, broke) => {
        res.on('end', done);
        res.on('error', broke);
        res.on('close', () => (res.complete ? done() : broke(new Error('the body was cut'))));
      });
      ended.catch(() => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => body,
        ended,
        close: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}

t.test("a viewer reads a game server's log as plain text; tailLines gives the last lines", async (t) => {
  const { app, audit } = await setUp(t);
  await readyServer(app, 'chatty');
  await say(app, 'chatty', 'one');
  await say(app, 'chatty', 'two');
  const viewer = { 'x-api-key': await createKey(app, 'log-reader', 'viewer') };

  const all = await logsOf(app, 'chatty', '', viewer);
  t.equal(all.statusCode, 200, all.body);
  t.equal(all.headers['content-type'], 'text/plain; charset=utf-8');
  t.match(all.body, /SDK: Ready\(\) called, game server is Ready\n[^]*\[say\] one\n\[say\] two\n$/);
  t.equal((await logsOf(app, 'chatty', '?tailLines=2', viewer)).body, '[say] one\n[say] two\n');
  t.equal((await logsOf(app, 'chatty', '?tailLines=1&follow=false', viewer)).body, '[say] two\n');

  const lines = auditOf(audit, 'chatty');
  t.equal(lines.length, 3, 'one audit line per request');
  t.match(lines[0], {
    user: 'log-reader',
    role: 'viewer',
    method: 'GET',
    status: 200,
    result: 'success',
    target: 'games/chatty',
    outcome: 'end of log',
  });
});

t.test('sinceSeconds leaves out the lines older than that', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'aging');
  t.match((await logsOf(app, 'aging', '?sinceSeconds=3600')).body, /SDK: Ready\(\) called/);
  // The Ready line ages past two seconds; the log itself says when.
  await until(
    'the Ready line to be older than 2 s',
    async () => !(await logsOf(app, 'aging', '?sinceSeconds=2')).body.includes('SDK: Ready'),
    10_000,
  );
  await say(app, 'aging', 'fresh');
  t.equal((await logsOf(app, 'aging', '?sinceSeconds=2')).body, '[say] fresh\n');
});

t.test('a follow over plain text receives the lines written after it started', async (t) => {
  const { app, audit } = await setUp(t);
  await readyServer(app, 'live');
  const url = await listen(app);
  const live = await open(url, '/api/v1/gameservers/games/live/logs?follow=true&tailLines=1', BASIC_ADMIN);
  t.equal(live.status, 200);
  t.equal(live.headers['content-type'], 'text/plain; charset=utf-8');
  await until('the last line so far', () => live.text() === 'SDK: Ready() called, game server is Ready\n');
  await say(app, 'live', 'hello');
  await until('the line written after the follow started', () => live.text().endsWith('[say] hello\n'));
  await say(app, 'live', 'again');
  await until('and the next one', () => live.text().endsWith('[say] hello\n[say] again\n'));
  t.equal(auditOf(audit, 'live').length, 0, 'the audit line of a follow is written when it ends');

  live.close();
  await until('the Kubernetes log stream to be closed', () => app.kube.logs.active === 0);
  await until('the audit line', () => auditOf(audit, 'live').length > 0);
  const lines = auditOf(audit, 'live');
  t.equal(lines.length, 1, 'one audit line for the whole follow');
  t.match(
    lines[0],
    { status: 499, result: 'failure', target: 'games/live', outcome: 'client went' },
    'the client went away',
  );
});

t.test('a follow ends cleanly when the game server is deleted', async (t) => {
  const { app, audit } = await setUp(t);
  await readyServer(app, 'doomed');
  const url = await listen(app);
  const live = await open(url, '/api/v1/gameservers/games/doomed/logs?follow=true', BASIC_ADMIN);
  await until('the log so far', () => live.text().includes('SDK: Ready'));
  const deleted = await app.inject({ method: 'DELETE', url: '/api/v1/gameservers/games/doomed', headers: BASIC_ADMIN });
  t.equal(deleted.statusCode, 204);
  await live.ended;
  t.pass('the body ended: no cut, no error');
  t.equal(app.kube.logs.active, 0, 'no Kubernetes stream left open');
  await until('the audit line', () => auditOf(audit, 'doomed').length > 0);
  t.equal(auditOf(audit, 'doomed').length, 1);
  t.match(auditOf(audit, 'doomed')[0], { status: 200, result: 'success', outcome: 'game server deleted' });
});

t.test(
  'with Accept: text/event-stream a follow is Server-Sent Events, one a line, and says why it ended',
  async (t) => {
    const { app, audit } = await setUp(t);
    await readyServer(app, 'events');
    await say(app, 'events', 'before');
    const url = await listen(app);
    const live = await open(url, '/api/v1/gameservers/games/events/logs?follow=true&tailLines=1', {
      ...BASIC_ADMIN,
      accept: 'text/event-stream',
    });
    t.equal(live.status, 200);
    t.equal(live.headers['content-type'], 'text/event-stream');
    t.equal(live.headers['cache-control'], 'no-store');
    await until('the last line so far', () => live.text() === 'data: [say] before\n\n');
    await say(app, 'events', 'after');
    await until('the new line as an event', () => live.text() === 'data: [say] before\n\ndata: [say] after\n\n');
    t.equal(
      (await app.inject({ method: 'DELETE', url: '/api/v1/gameservers/games/events', headers: BASIC_ADMIN }))
        .statusCode,
      204,
    );
    await live.ended;
    t.match(
      live.text(),
      /\n\nevent: end\ndata: game server deleted\n\n$/,
      'the last event says the game server was deleted',
    );
    await until('the audit line', () => auditOf(audit, 'events').length > 0);
    t.match(auditOf(audit, 'events'), [{ status: 200, outcome: 'game server deleted' }]);
    t.equal(auditOf(audit, 'events').length, 1);
  },
);

t.test('events without follow end with "end of log"; Accept decides the format', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'formats');
  await say(app, 'formats', 'x');
  const sse = await logsOf(app, 'formats', '?tailLines=1', {
    ...BASIC_ADMIN,
    accept: 'text/plain;q=0.5, text/event-stream',
  });
  t.equal(sse.headers['content-type'], 'text/event-stream');
  t.equal(sse.body, 'data: [say] x\n\nevent: end\ndata: end of log\n\n');
  for (const accept of [
    '*/*',
    'text/plain',
    'application/json',
    'text/event-stream;q=0.5, text/plain',
    'text/plain, text/event-stream',
  ]) {
    const res = await logsOf(app, 'formats', '?tailLines=1', { ...BASIC_ADMIN, accept });
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8', `Accept: ${accept}`);
    t.equal(res.body, '[say] x\n');
  }
});

t.test('a client that goes away closes the Kubernetes stream at once, however many were following', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'watched');
  const url = await listen(app);
  const follows = await Promise.all(
    ['text/plain', 'text/event-stream', 'text/plain'].map((accept) =>
      open(url, '/api/v1/gameservers/games/watched/logs?follow=true', { ...BASIC_ADMIN, accept }),
    ),
  );
  await until('every follow connected', () => follows.every((f) => f.text().includes('SDK: Ready')));
  t.equal(app.kube.logs.active, 3, 'one Kubernetes stream per follow');
  follows[0]?.close();
  await until('its stream to close', () => app.kube.logs.active === 2);
  await say(app, 'watched', 'still');
  await until('the others to go on', () => follows.slice(1).every((f) => f.text().includes('[say] still')));
  for (const f of follows.slice(1)) f.close();
  await until('every stream to close', () => app.kube.logs.active === 0);
});

t.test('HEAD answers as GET would, without a body or a stream left open', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'heads');
  const url = await listen(app);
  for (const query of ['', '?follow=true']) {
    const res = await fetch(`${url}/api/v1/gameservers/games/heads/logs${query}`, {
      method: 'HEAD',
      headers: BASIC_ADMIN,
    });
    t.equal(res.status, 200, `HEAD ${query}`);
    t.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  }
  t.equal(
    (await fetch(`${url}/api/v1/gameservers/games/nobody/logs`, { method: 'HEAD', headers: BASIC_ADMIN })).status,
    404,
  );
  await until('no Kubernetes stream left open', () => app.kube.logs.active === 0);
});

t.test('bad parameters answer 400, an unknown game server 404, one without a pod 409', async (t) => {
  const { app, kube, audit } = await setUp(t);
  await readyServer(app, 'podless');
  for (const query of [
    '?tailLines=0',
    '?tailLines=100001',
    '?tailLines=x',
    '?sinceSeconds=0',
    '?sinceSeconds=2592001',
    '?follow=maybe',
    '?tail=5',
  ]) {
    const res = await logsOf(app, 'podless', query);
    t.equal(res.statusCode, 400, `${query}: ${res.body}`);
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  }
  t.equal(
    (await logsOf(app, 'podless', '?tailLines=100000&sinceSeconds=2592000')).statusCode,
    200,
    'the bounds themselves are allowed',
  );
  const unknown = await logsOf(app, 'nobody');
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json(), { detail: 'game server games/nobody not found' });

  // Agones does not replace a game server's pod: once it is gone, there is no log to read.
  t.equal((await kubectl(kube, ['delete', 'pod', 'podless', '-n', 'games'])).code, 0);
  const none = await logsOf(app, 'podless');
  t.equal(none.statusCode, 409, none.body);
  t.match(none.json(), { detail: /^game server games\/podless has no pod \(it is \w+\), so no log to read$/ });
  t.equal(auditOf(audit, 'podless').length, 9, 'every request audited once');
});

t.test('an unreachable or silent cluster answers 503 with Retry-After within KUBE_REQUEST_TIMEOUT', async (t) => {
  const kube = await startKube(t);
  const relay = await startRelay(t, { host: new URL(kube.url).hostname, port: Number(new URL(kube.url).port) });
  const { app } = await setUp(t, { KUBECONFIG: relayedKubeconfig(t, kube, relay), KUBE_REQUEST_TIMEOUT: '1s' }, kube);
  await readyServer(app, 'far');
  relay.stall('answers');
  const started = Date.now();
  const silent = await logsOf(app, 'far');
  t.equal(silent.statusCode, 503);
  t.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
  t.ok(Number(silent.headers['retry-after']) > 0);
  t.match(silent.json(), { detail: 'the Kubernetes API did not answer within 1 s (KUBE_REQUEST_TIMEOUT)' });
  relay.cut();
  const cut = await logsOf(app, 'far');
  t.equal(cut.statusCode, 503);
  t.match(cut.json(), { detail: /^the Kubernetes API could not be reached/ });
  await until('the stalled streams to be given up', () => app.kube.logs.active === 0);
});

t.test('closing the control plane ends open follows rather than waiting on them', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'lasting');
  const url = await listen(app);
  const live = await open(url, '/api/v1/gameservers/games/lasting/logs?follow=true', {
    ...BASIC_ADMIN,
    accept: 'text/event-stream',
  });
  await until('the log so far', () => live.text().includes('SDK: Ready'));
  const started = Date.now();
  await app.close();
  await live.ended;
  t.ok(Date.now() - started < 2000, `closed in ${Date.now() - started} ms`);
  t.match(live.text(), /event: end\ndata: control plane shutting down\n\n$/);
});
