import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import type { Test as Tap } from 'tap';
import { WebSocket } from 'ws';
import type { FastifyInstance } from 'fastify';
import type { KubeLite } from '@gsp/kube-lite';
import {
  ADMIN_PASSWORD,
  BASIC_ADMIN,
  GAME_PROFILE,
  LogCapture,
  TEST_REDIS_URL,
  build,
  createGamesNamespace,
  createKey,
  listen,
  postAction,
  postGameServer,
  putProfiles,
  readyServer,
  redisPrefix,
  startKube,
  until,
} from './helper.js';
import type { AuditCapture } from './helper.js';
import { CLIENT_ID, signingKey, startIssuer } from './oidc-issuer.js';
import { nodeEntry, workspaceDir } from '@gsp/service-kit/testing/entry';

const PROFILE = GAME_PROFILE;
const SCRIPT = join(workspaceDir(import.meta.url), '..', '..', 'scripts', 'terminal.ts');

type ServerMessage =
  { type: 'output'; data: string } | { type: 'state'; state: string } | { type: 'closed'; reason: string };

interface Replica {
  app: FastifyInstance;
  audit: AuditCapture;
  log: LogCapture;
  /** http://127.0.0.1:port */
  http: string;
}

/** A control plane listening on a free port, logging at info into `log`. */
async function replica(t: Tap, kube: KubeLite, env: Record<string, string> = {}): Promise<Replica> {
  const log = new LogCapture();
  const { app, audit } = await build(t, kube, env, { logger: { level: 'info', stream: log } });
  return { app, audit, log, http: await listen(app) };
}

async function cluster(t: Tap): Promise<KubeLite> {
  const kube = await startKube(t);
  await createGamesNamespace(kube);
  return kube;
}

async function setUp(t: Tap, env: Record<string, string> = {}): Promise<Replica & { kube: KubeLite }> {
  const kube = await cluster(t);
  const one = await replica(t, kube, env);
  await putProfiles(one.app, { arena: PROFILE });
  return { ...one, kube };
}

const consoleUrl = (http: string, name: string, ticket?: string) => {
  const query = ticket === undefined ? '' : `?ticket=${encodeURIComponent(ticket)}`;
  return `${http.replace(/^http/, 'ws')}/api/v1/gameservers/games/${name}/console${query}`;
};

/** A console client: every message it received, in order, and how its socket closed. */
class Console {
  readonly messages: ServerMessage[] = [];
  closeCode: number | undefined;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.messages.push(JSON.parse(data.toString()) as ServerMessage));
    ws.on('close', (code) => (this.closeCode = code));
  }

  input(data: string): void {
    this.ws.send(JSON.stringify({ type: 'input', data }));
  }

  output(): string {
    return this.messages.flatMap((m) => (m.type === 'output' ? [m.data] : [])).join('');
  }

  states(): string[] {
    return this.messages.flatMap((m) => (m.type === 'state' ? [m.state] : []));
  }

  closedReason(): string | undefined {
    const closed = this.messages.find((m): m is Extract<ServerMessage, { type: 'closed' }> => m.type === 'closed');
    return closed?.reason;
  }

  async closed(ms = 5000): Promise<string> {
    return until(
      'the console to close',
      () =>
        this.closeCode === undefined
          ? undefined
          : (this.closedReason() ?? `(no closed message, code ${this.closeCode})`),
      ms,
    );
  }
}

/** Opens a console; a refused upgrade rejects with its status and problem body. */
function open(url: string, headers: Record<string, string> = {}): Promise<Console> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const client = new Console(ws);
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        reject(
          Object.assign(new Error(`upgrade refused: ${res.statusCode}`), {
            status: res.statusCode,
            type: res.headers['content-type'],
            body,
          }),
        ),
      );
    });
    ws.once('error', reject);
  });
}

async function refused(t: Tap, opening: Promise<Console>, status: number, detail?: RegExp): Promise<void> {
  const err = (await opening.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status?: number; type?: string; body?: string } | undefined;
  t.equal(err?.status, status, `refused with ${status}`);
  t.match(err?.type, /^application\/problem\+json/);
  if (detail) t.match(JSON.parse(err?.body ?? '{}'), { detail });
}

async function ticketFor(
  app: FastifyInstance,
  name: string,
  headers: Record<string, string>,
): Promise<{ ticket: string; expiresAt: string }> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/gameservers/games/${name}/console/tickets`, headers });
  if (res.statusCode !== 201) throw new Error(`ticket: ${res.statusCode} ${res.body}`);
  return res.json();
}

t.test('an operator opens the console, types say hello and reads the game console answer', async (t) => {
  const { app, http } = await setUp(t);
  await readyServer(app, 'one');
  const key = await createKey(app, 'ops', 'operator');
  const client = await open(consoleUrl(http, 'one'), { 'x-api-key': key });
  await until('the first state', () => client.states().length > 0);
  t.same(client.states(), ['Ready'], 'the console starts with the state of the game server');
  client.input('say hello\n');
  await until('the answer', () => client.output().includes('[server] hello\n'));
  client.input('status\n');
  await until('the status line', () => /one/.test(client.output().split('[server] hello\n')[1] ?? ''));
  client.ws.close();
  t.equal(await client.closed(), '(no closed message, code 1005)', 'a console the client closes just closes');
});

t.test(
  'the console says the state when another request allocates the server, and closes when it shuts down',
  async (t) => {
    const { app, http } = await setUp(t);
    await readyServer(app, 'alloc');
    const client = await open(consoleUrl(http, 'alloc'), BASIC_ADMIN);
    await until('the first state', () => client.states().length > 0);
    t.equal((await postAction(app, 'alloc', 'allocate')).statusCode, 200);
    await until('the Allocated state', () => client.states().includes('Allocated'));
    t.same(client.states(), ['Ready', 'Allocated']);
    client.input('say still here\n');
    await until('the answer after allocation', () => client.output().includes('[server] still here'));
    // Players are on an Allocated server: shutting it down takes force.
    t.equal((await postAction(app, 'alloc', 'shutdown', ['force'])).statusCode, 200);
    t.equal(await client.closed(), 'game server shut down');
    t.equal(client.closeCode, 1000);
    t.equal(client.messages.at(-1)?.type, 'closed', 'closed is the last message');
  },
);

t.test('several consoles on one server all see the output, whoever typed', async (t) => {
  const { app, http } = await setUp(t);
  await readyServer(app, 'many');
  const clients = await Promise.all([1, 2, 3].map(() => open(consoleUrl(http, 'many'), BASIC_ADMIN)));
  clients.forEach((c, i) => c.input(`say from ${i}\n`));
  await until('every answer on every console', () =>
    clients.every((c) => [0, 1, 2].every((i) => c.output().includes(`[server] from ${i}`))),
  );
  t.pass('three consoles at once, each seeing the three answers');
});

t.test('a game server that does not exist is a 404 before the upgrade; one that is not running a 409', async (t) => {
  const { app, http, audit } = await setUp(t);
  await refused(t, open(consoleUrl(http, 'ghost'), BASIC_ADMIN), 404, /games\/ghost not found/);
  const res = await postGameServer(app, 'games', { profile: 'arena', name: 'early' });
  t.equal(res.statusCode, 201);
  const state = (
    (await app.inject({ url: '/api/v1/gameservers/games/early', headers: BASIC_ADMIN })).json() as { state: string }
  ).state;
  if (state === 'Creating' || state === 'Scheduled') {
    await refused(t, open(consoleUrl(http, 'early'), BASIC_ADMIN), 409, /needs a running game server/);
  }
  await refused(t, open(consoleUrl(http, 'ghost')), 401);
  const plain = await app.inject({ url: '/api/v1/gameservers/games/ghost/console', headers: BASIC_ADMIN });
  t.equal(plain.statusCode, 404, 'a plain GET is checked the same way');
  await until(
    'the audit lines',
    () => audit.lines().filter((l) => l.path === '/api/v1/gameservers/games/ghost/console').length >= 3,
  );
  t.same(
    audit
      .lines()
      .filter((l) => l.path === '/api/v1/gameservers/games/ghost/console')
      .map((l) => [l.status, l.result]),
    [
      [404, 'failure'],
      [401, 'failure'],
      [404, 'failure'],
    ],
    'a refused upgrade has its audit line like any request',
  );
});

t.test('a plain GET of the console route says it is a WebSocket; a viewer may not open it', async (t) => {
  const { app, http } = await setUp(t);
  await readyServer(app, 'plain');
  const res = await app.inject({ url: '/api/v1/gameservers/games/plain/console', headers: BASIC_ADMIN });
  t.equal(res.statusCode, 400);
  t.match(res.json(), { detail: /WebSocket/ });
  const viewer = await createKey(app, 'looker', 'viewer');
  await refused(t, open(consoleUrl(http, 'plain'), { 'x-api-key': viewer }), 403, /may not execute console/);
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/gameservers/games/plain/console/tickets',
        headers: { 'x-api-key': viewer },
      })
    ).statusCode,
    403,
  );
});

t.test('a ticket opens the console once without credential headers, on any replica sharing Redis', async (t) => {
  const kube = await cluster(t);
  const env = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
  const a = await replica(t, kube, env);
  const b = await replica(t, kube, env);
  await putProfiles(a.app, { arena: PROFILE });
  await readyServer(a.app, 'web');
  await until(
    'b to see the server',
    async () => (await b.app.inject({ url: '/api/v1/gameservers/games/web', headers: BASIC_ADMIN })).statusCode === 200,
  );
  const key = await createKey(a.app, 'browser-user', 'operator');

  const res = await a.app.inject({
    method: 'POST',
    url: '/api/v1/gameservers/games/web/console/tickets',
    headers: { 'x-api-key': key },
  });
  t.equal(res.statusCode, 201);
  t.equal(res.headers['cache-control'], 'no-store');
  const { ticket, expiresAt } = res.json() as { ticket: string; expiresAt: string };
  t.match(ticket, /^[A-Za-z0-9_-]{43}$/);
  const ttl = Date.parse(expiresAt) - Date.now();
  t.ok(ttl > 25_000 && ttl <= 30_000, `valid 30 s (${ttl} ms left)`);

  const client = await open(consoleUrl(b.http, 'web', ticket));
  client.input('say from the browser\n');
  await until('the answer', () => client.output().includes('[server] from the browser'));
  await refused(
    t,
    open(consoleUrl(a.http, 'web', ticket)),
    401,
    /used already, has expired or is for another game server/,
  );
  await refused(t, open(consoleUrl(b.http, 'web', ticket)), 401);

  const elsewhere = await ticketFor(a.app, 'web', { 'x-api-key': key });
  await refused(t, open(consoleUrl(a.http, 'other', elsewhere.ticket)), 401, /for another game server/);
  await refused(t, open(consoleUrl(a.http, 'web', elsewhere.ticket)), 401, undefined);

  await until('the close audit line', async () => {
    client.ws.close();
    return b.audit.lines().some((l) => l.action === 'console.close');
  });
  const opened = b.audit.lines().find((l) => l.status === 101 && l.action === undefined);
  t.match(
    opened,
    { user: 'browser-user', role: 'operator', authMethod: 'apikey', target: 'games/web', result: 'success' },
    'the console is audited as the user the ticket was issued to',
  );
  const everything = [a, b].map((r) => r.audit.text.join('') + r.log.text).join('');
  t.ok(a.log.text.includes('ticket=[REDACTED]'), 'the request log shows the URL with the ticket redacted');
  for (const secret of [ticket, elsewhere.ticket, key])
    t.notOk(everything.includes(secret), 'no ticket or key in any audit or log line');
});

t.test('a ticket is refused after its time, and after the key it was asked with is revoked', async (t) => {
  const { app, http } = await setUp(t, { CONSOLE_TICKET_TTL: '300ms' });
  await readyServer(app, 'late');
  const key = await createKey(app, 'late-user', 'operator');
  const { ticket, expiresAt } = await ticketFor(app, 'late', { 'x-api-key': key });
  await until('the ticket to expire', () => Date.now() > Date.parse(expiresAt));
  await refused(t, open(consoleUrl(http, 'late', ticket)), 401);

  const fresh = await ticketFor(app, 'late', { 'x-api-key': key });
  t.equal(
    (await app.inject({ method: 'DELETE', url: '/api/v1/apikeys/late-user', headers: BASIC_ADMIN })).statusCode,
    204,
  );
  await refused(t, open(consoleUrl(http, 'late', fresh.ticket)), 401);
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/gameservers/games/ghost/console/tickets', headers: BASIC_ADMIN }))
      .statusCode,
    404,
    'no ticket for a game server that does not exist',
  );
});

t.test('revoking the API key on another replica closes its open console within 2 s', async (t) => {
  const kube = await cluster(t);
  const a = await replica(t, kube);
  const b = await replica(t, kube);
  t.equal(
    (await a.app.inject({ method: 'PUT', url: '/api/v1/profiles/arena', headers: BASIC_ADMIN, payload: PROFILE }))
      .statusCode,
    201,
  );
  await readyServer(a.app, 'rev');
  const key = await createKey(a.app, 'leaving', 'operator');
  const other = await createKey(a.app, 'staying', 'operator');
  await until(
    'b to know the keys',
    async () => (await b.app.inject({ url: '/api/v1/session', headers: { 'x-api-key': other } })).statusCode === 200,
  );
  const client = await open(consoleUrl(a.http, 'rev'), { 'x-api-key': key });
  const bystander = await open(consoleUrl(a.http, 'rev'), { 'x-api-key': other });
  client.input('say before\n');
  await until('the answer', () => client.output().includes('[server] before'));

  const started = Date.now();
  t.equal(
    (await b.app.inject({ method: 'DELETE', url: '/api/v1/apikeys/leaving', headers: BASIC_ADMIN })).statusCode,
    204,
  );
  t.equal(await client.closed(2000), 'credential revoked');
  t.ok(Date.now() - started < 2000, `closed ${Date.now() - started} ms after the revocation was asked for`);
  t.equal(client.closeCode, 1008);
  bystander.input('say unaffected\n');
  await until('the other console to go on', () => bystander.output().includes('[server] unaffected'));
  t.equal(bystander.closeCode, undefined);
  await until('the close audit line', () =>
    a.audit.lines().some((l) => l.action === 'console.close' && l.user === 'leaving'),
  );
  t.match(
    a.audit.lines().find((l) => l.action === 'console.close'),
    { reason: 'credential revoked', result: 'failure' },
  );
});

t.test("an API key's expiry closes its console", async (t) => {
  const { app, http } = await setUp(t);
  await readyServer(app, 'exp');
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/apikeys',
    headers: BASIC_ADMIN,
    payload: { name: 'brief', role: 'operator', expiresIn: '2s' },
  });
  t.equal(res.statusCode, 201);
  const { key, expiresAt } = res.json() as { key: string; expiresAt: string };
  const client = await open(consoleUrl(http, 'exp'), { 'x-api-key': key });
  t.equal(await client.closed(4000), 'credential expired');
  t.ok(Date.now() >= Date.parse(expiresAt), 'not before the key expired');
  t.ok(Date.now() - Date.parse(expiresAt) < 1000, 'within a second of it');
});

t.test("a bearer token's exp closes the console opened with it", async (t) => {
  const key = await signingKey('k1', 'RS256');
  const idp = await startIssuer(t);
  idp.publish([key]);
  const { app, http } = await setUp(t, {
    AUTH_MODE: 'apikey,basic,oidc',
    AUTH_OIDC_ISSUER_URL: idp.issuer,
    AUTH_OIDC_CLIENT_ID: CLIENT_ID,
    AUTH_OIDC_ROLE_CLAIM: 'groups',
    AUTH_OIDC_ROLE_MAPPING: 'ops=operator',
  });
  await readyServer(app, 'tok');
  const token = await idp.sign(key, 'alice', { groups: ['ops'] }, { exp: '3s' });
  const exp =
    (JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { exp: number }).exp * 1000;
  const client = await open(consoleUrl(http, 'tok'), { authorization: `Bearer ${token}` });
  await until('the first state', () => client.states().length > 0);
  t.equal(await client.closed(6000), 'credential expired');
  t.ok(Date.now() >= exp, 'not before the token expired');
  t.ok(Date.now() - exp < 1000, 'within a second of it');
});

t.test(
  'audit: the open, each input line with its text, and the close with duration and bytes; no key, password or ticket',
  async (t) => {
    const { app, http, audit, log } = await setUp(t);
    await readyServer(app, 'aud');
    const key = await createKey(app, 'typist', 'operator');
    const client = await open(consoleUrl(http, 'aud'), { 'x-api-key': key, 'user-agent': 'console-test/1.0' });
    client.input('say one\nsay tw');
    client.input('o\n\n');
    client.input(`say ${'x'.repeat(300)}\n`);
    await until('three answers', () => (client.output().match(/\[server\]/g) ?? []).length === 3);
    client.ws.close();
    await client.closed();
    const basic = await open(consoleUrl(http, 'aud'), BASIC_ADMIN);
    basic.input('players\n');
    await until('the answer', () => basic.output().includes('players'));
    basic.ws.close();
    const { ticket } = await ticketFor(app, 'aud', BASIC_ADMIN);
    (await open(consoleUrl(http, 'aud', ticket))).ws.close();
    await until('three close lines', () => audit.lines().filter((l) => l.action === 'console.close').length === 3);

    const lines = audit
      .lines()
      .filter((l) => l.path === '/api/v1/gameservers/games/aud/console' && l.user === 'typist');
    t.same(
      lines.map((l) => [l.action ?? 'open', l.status, l.command]),
      [
        ['open', 101, undefined],
        ['console.input', 101, 'say one'],
        ['console.input', 101, 'say two'],
        ['console.input', 101, `say ${'x'.repeat(252)}`],
        ['console.close', 101, undefined],
      ],
      'one line per input line, split on newlines and cut at 256 characters',
    );
    const requestIds = new Set(lines.map((l) => l.requestId));
    t.equal(requestIds.size, 1, 'every line of a console carries its request id');
    for (const line of lines) {
      t.match(line, {
        level: 'audit',
        user: 'typist',
        role: 'operator',
        method: 'GET',
        clientIP: '127.0.0.1',
        userAgent: 'console-test/1.0',
        authMethod: 'apikey',
        target: 'games/aud',
      });
    }
    const close = lines.at(-1) as Record<string, unknown>;
    t.match(close, {
      reason: 'connection closed',
      result: 'success',
      bytesIn: 'say one\nsay two\n\n'.length + 305,
      durationMs: Number,
    });
    t.ok((close.bytesOut as number) >= client.output().length, 'bytes sent counted');
    const everything = audit.text.join('') + log.text;
    for (const secret of [key, ticket, ADMIN_PASSWORD, BASIC_ADMIN.authorization.split(' ')[1] as string]) {
      t.notOk(everything.includes(secret), 'no key, password or ticket in any line');
    }
  },
);

t.test('input past the limits, and messages that are not input, close the console saying why', async (t) => {
  const { app, http } = await setUp(t);
  await readyServer(app, 'lim');
  const cases: [string, (c: Console) => void, RegExp, number][] = [
    [
      '4 KiB of data at most',
      (c) => c.input(`say ${'y'.repeat(4096)}\n`),
      /^input message larger than 4096 bytes$/,
      1009,
    ],
    [
      '20 messages a second at most',
      (c) => Array.from({ length: 21 }, () => c.input('players\n')),
      /^more than 20 input messages per second$/,
      1008,
    ],
    ['JSON only', (c) => c.ws.send('say hello'), /^invalid message: not JSON$/, 1008],
    [
      'input only',
      (c) => c.ws.send(JSON.stringify({ type: 'resize', cols: 80 })),
      /^unknown message type "resize"/,
      1008,
    ],
    ['data a string', (c) => c.ws.send(JSON.stringify({ type: 'input', data: 42 })), /needs "data", a string/, 1008],
    ['text frames only', (c) => c.ws.send(Buffer.from('say hello\n')), /^binary frames are not accepted/, 1003],
  ];
  for (const [what, misbehave, reason, code] of cases) {
    const client = await open(consoleUrl(http, 'lim'), BASIC_ADMIN);
    misbehave(client);
    t.match(await client.closed(), reason, what);
    t.equal(client.closeCode, code, `${what}: close code ${code}`);
  }
  const fine = await open(consoleUrl(http, 'lim'), BASIC_ADMIN);
  Array.from({ length: 20 }, (_, i) => fine.input(`say ${i}\n`));
  await until('twenty answers', () => fine.output().includes('[server] 19'));
  t.equal(fine.closeCode, undefined, '20 messages in a second are fine');
});

t.test(
  'a client breaking the WebSocket protocol is a warning without a stack, and its close is audited as a failure',
  async (t) => {
    const { app, http, audit, log } = await setUp(t);
    await readyServer(app, 'rude');
    // A close frame with code 1005, which no endpoint may send: masked (with a zero key) as from a client.
    const closeFrame1005 = Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xed]);
    const cases: [string, (c: Console) => void, RegExp, number][] = [
      ['a frame over 64 KiB', (c) => c.ws.send('x'.repeat(64 * 1024 + 1)), /Max payload size exceeded/, 1009],
      [
        'close code 1005',
        (c) => (c.ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(closeFrame1005),
        /invalid status code 1005/,
        1002,
      ],
    ];
    for (const [what, misbehave, reason, code] of cases) {
      const before = audit.lines().filter((l) => l.action === 'console.close').length;
      const client = await open(consoleUrl(http, 'rude'), BASIC_ADMIN);
      misbehave(client);
      const closeLine = await until(
        'the close audit line',
        () => audit.lines().filter((l) => l.action === 'console.close')[before],
      );
      t.match(
        closeLine,
        { result: 'failure', reason: new RegExp(`^client broke the WebSocket protocol: .*${reason.source}`) },
        `${what}: audited as a failure saying why`,
      );
      if (what === 'a frame over 64 KiB') t.equal(await client.closed().then(() => client.closeCode), code, what);
      const entries = log.text
        .split('\n')
        .filter((l) => l.includes('WebSocket') || l.includes('"stack"'))
        .map((l) => JSON.parse(l) as { level: number; msg: string; stack?: string; err?: unknown });
      const warning = entries.find((e) => reason.test(JSON.stringify(e)));
      t.match(
        warning,
        { level: 40, msg: 'console client broke the WebSocket protocol' },
        `${what}: logged as a warning`,
      );
      t.notOk(
        entries.some((e) => e.level >= 50 || e.err !== undefined || e.stack !== undefined),
        `${what}: no error and no stack`,
      );
    }
  },
);

t.test('a client that does not read is closed at 1 MiB waiting, and never stalls another console', async (t) => {
  const { app, http, audit } = await setUp(t);
  await readyServer(app, 'slow');
  const slow = await open(consoleUrl(http, 'slow'), BASIC_ADMIN);
  const fast = await open(consoleUrl(http, 'slow'), BASIC_ADMIN);
  slow.ws.pause();
  const sentAt = new Map<number, number>();
  const answeredAt = new Map<number, number>();
  const latencies: number[] = [];
  fast.ws.on('message', (data) => {
    const n = /\[server\] (\d+)/.exec(data.toString())?.[1];
    if (n === undefined) return;
    answeredAt.set(Number(n), performance.now());
    latencies.push(performance.now() - (sentAt.get(Number(n)) as number));
  });
  // Audit lines pile up (one per typed line): only the new ones are looked at.
  let scanned = 0;
  const tooSlow = (): boolean => {
    for (; scanned < audit.text.length; scanned++)
      if ((audit.text[scanned] as string).includes('"reason":"client too slow"')) return true;
    return false;
  };
  // `help` answers some 400 bytes for 5 typed: each message asks for ~300 KB of output.
  const flood = 'help\n'.repeat(800);
  let last = 0;
  await until(
    'the slow console to be closed',
    () => {
      if (performance.now() - last >= 100) {
        last = performance.now();
        slow.input(flood);
        sentAt.set(sentAt.size + 1, performance.now());
        fast.input(`say ${sentAt.size}\n`);
      }
      return tooSlow();
    },
    20_000,
  );
  // Every line typed a second or more before the slow console was closed had its answer before then:
  // the fast console kept answering while the slow one held its output (a stall would leave them waiting).
  const closedAt = performance.now();
  const early = [...sentAt].filter(([, at]) => at <= closedAt - 1000).map(([n]) => n);
  const waiting = early.filter((n) => (answeredAt.get(n) ?? Infinity) > closedAt);
  t.ok(early.length >= 5, `the slow console held its output for a while (${sentAt.size} lines typed meanwhile)`);
  t.same(waiting, [], `the fast console answered while the slow one held its output (${early.length} lines)`);
  await until('every answer of the fast console', () => latencies.length === sentAt.size);
  // Kube-lite, the control plane and both clients share this process, busy with ~3 MB/s of output.
  t.ok(Math.max(...latencies) < 2000, `each answer within ${Math.round(Math.max(...latencies))} ms`);
  fast.input('say after\n');
  await until('the fast console to go on', () => fast.output().includes('[server] after'));
  t.equal(fast.closeCode, undefined);
  slow.ws.resume();
  await slow.closed(10_000);
  t.pass('the slow client is disconnected');
});

t.test('npm run terminal: stdin lines go in, output comes out', async (t) => {
  const { app, http } = await setUp(t);
  await readyServer(app, 'cli');
  const key = await createKey(app, 'terminal', 'operator');
  const run = (env: Record<string, string>, input: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [...nodeEntry(SCRIPT), 'games/cli'], {
        env: { PATH: process.env.PATH ?? '', CONTROL_PLANE_URL: http, ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input);
    });
  const ok = await run({ GSP_API_KEY: key }, 'say from the terminal\nplayers\n');
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, /\[server\] from the terminal\n0 players\n/);
  const basic = await run({ GSP_BASIC_USER: 'root', GSP_BASIC_PASSWORD: ADMIN_PASSWORD }, 'say basic\n');
  t.match(basic.stdout, /\[server\] basic/);
  const bad = await run({ GSP_API_KEY: 'gsp_nope' }, '');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /401/);
});
