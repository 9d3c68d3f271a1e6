import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  ADMIN_PASSWORD,
  ADMIN_USER,
  BASIC_ADMIN,
  baseEnv,
  build,
  redisPrefix,
  startKube,
  TEST_REDIS_URL,
  until,
} from './helper.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

t.test('standard output carries exactly one audit line per request, and no credential anywhere', async (t) => {
  const kube = await startKube(t);
  const child = spawn(process.execPath, nodeEntry(server), {
    env: {
      ...process.env,
      ...baseEnv(kube),
      PORT: '0',
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMIT_MAX: '3',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redisPrefix(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const port = await until(
    'the server to listen',
    () => /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1],
    20_000,
  );
  const base = `http://127.0.0.1:${port}`;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { headers }).then(async (r) => ({
      status: r.status,
      type: r.headers.get('content-type'),
      body: await r.text(),
    }));
  const problem = 'application/problem+json; charset=utf-8';

  t.equal((await get('/healthz')).status, 200);
  t.equal((await get('/api/v1/gameservers')).status, 401);
  const created = await fetch(`${base}/api/v1/apikeys`, {
    method: 'POST',
    headers: { ...BASIC_ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'audited', role: 'viewer' }),
  });
  t.equal(created.status, 201);
  const { key } = (await created.json()) as { key: string };
  const viewer = { 'x-api-key': key, 'user-agent': 'audit-test/1.0' };
  t.equal((await get('/api/v1/apikeys', viewer)).status, 403);
  t.match(await get('/api/v1/nowhere', BASIC_ADMIN), { status: 404, type: problem });
  t.match(await get('/api/v1/%zz', BASIC_ADMIN), { status: 400, type: problem, body: /malformed percent-encoding/ });
  t.equal((await get('/api/v1/gameservers', viewer)).status, 200);
  t.equal((await get('/api/v1/gameservers', viewer)).status, 200);
  const limited = await fetch(`${base}/api/v1/gameservers`, { headers: viewer });
  t.equal(limited.status, 429, 'the fourth request of the key in the window is limited');
  t.ok(Number(limited.headers.get('retry-after')) > 0, 'with Retry-After');
  t.equal(
    (
      await get('/api/v1/gameservers', {
        authorization: `Basic ${Buffer.from('root:wrong-password').toString('base64')}`,
      })
    ).status,
    401,
  );
  t.equal((await get('/readyz')).status, 200);

  const lines = await until('nine audit lines', () => {
    const parsed = stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return parsed.length >= 9 ? parsed : undefined;
  });
  t.same(
    lines.map((l) => [l.status, l.result, l.user, l.method, l.path]),
    [
      [401, 'failure', '', 'GET', '/api/v1/gameservers'],
      [201, 'success', 'root', 'POST', '/api/v1/apikeys'],
      [403, 'failure', 'audited', 'GET', '/api/v1/apikeys'],
      [404, 'failure', 'root', 'GET', '/api/v1/nowhere'],
      // Refused before authentication: Fastify cannot decode the URL.
      [400, 'failure', '', 'GET', '/api/v1/%zz'],
      [200, 'success', 'audited', 'GET', '/api/v1/gameservers'],
      [200, 'success', 'audited', 'GET', '/api/v1/gameservers'],
      [429, 'failure', 'audited', 'GET', '/api/v1/gameservers'],
      [401, 'failure', '', 'GET', '/api/v1/gameservers'],
    ],
  );
  for (const line of lines) {
    t.match(line, {
      timestamp: String,
      level: 'audit',
      role: String,
      clientIP: '127.0.0.1',
      userAgent: String,
      requestId: String,
      authMethod: String,
      durationMs: Number,
    });
  }
  t.match(lines[2], { role: 'viewer', authMethod: 'apikey', userAgent: 'audit-test/1.0' });
  t.notOk(
    lines.some((l) => l.path === '/healthz' || l.path === '/readyz'),
    'probes are not audited',
  );

  const everything = stdout + stderr;
  const basicHeader = BASIC_ADMIN.authorization.split(' ')[1] as string;
  for (const secret of [
    key,
    key.slice(4, 20),
    ADMIN_PASSWORD,
    basicHeader,
    'wrong-password',
    Buffer.from('root:wrong-password').toString('base64'),
  ]) {
    t.notOk(everything.includes(secret), 'no credential in any output line');
  }
});

t.test(
  'every game-server, fleet and profile route audits one line naming its target, and no env or args value',
  async (t) => {
    const kube = await startKube(t);
    await kube.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'games' } } });
    const { app, audit } = await build(t, kube);
    const send = (method: string, url: string, payload?: object) =>
      app.inject({ method: method as 'GET', url, headers: BASIC_ADMIN, ...(payload ? { payload } : {}) });
    const profile = {
      image: 'example/game:1.0',
      ports: [{ name: 'game', containerPort: 7777 }],
      actions: { say: { command: ['printf', '%s'] } },
    };
    const calls: [string, string, object | undefined, string, string?][] = [
      ['PUT', '/api/v1/profiles/arena', profile, 'arena'],
      ['GET', '/api/v1/profiles/arena', undefined, 'arena'],
      [
        'POST',
        '/api/v1/gameservers/games',
        { profile: 'arena', name: 'gs-1', env: { TOKEN: 'env-secret-value' } },
        'games/gs-1',
      ],
      ['GET', '/api/v1/gameservers/games/gs-1', undefined, 'games/gs-1'],
      ['POST', '/api/v1/gameservers/games/gs-1/actions/nope', { args: ['arg-secret-value'] }, 'games/gs-1', 'nope'],
      ['POST', '/api/v1/fleets/games/none/scale', { replicas: 1 }, 'games/none'],
      ['DELETE', '/api/v1/gameservers/games/gs-1', undefined, 'games/gs-1'],
      ['DELETE', '/api/v1/profiles/arena', undefined, 'arena'],
    ];
    for (const [method, url, payload] of calls) await send(method, url, payload);
    const lines = audit.lines().filter((l) => l.user === ADMIN_USER);
    t.equal(lines.length, calls.length, 'one line per request');
    calls.forEach(([method, url, , target, action], i) => {
      t.match(lines[i], { method, path: url, target, ...(action ? { action } : {}) }, `${method} ${url}`);
    });
    const text = audit.text.join('');
    t.notMatch(text, /env-secret-value|arg-secret-value/, 'no env or args value reaches the audit');
    t.notMatch(text, new RegExp(ADMIN_PASSWORD), 'nor the password');
  },
);
