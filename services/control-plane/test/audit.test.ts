import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ADMIN_PASSWORD, BASIC_ADMIN, baseEnv, redisPrefix, startKube, TEST_REDIS_URL, until } from './helper.js';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

t.test('standard output carries exactly one audit line per request, and no credential anywhere', async (t) => {
  const kube = await startKube(t);
  const child = spawn(process.execPath, ['--conditions=@gsp/source', '--import', 'tsx', server], {
    env: { ...process.env, ...baseEnv(kube), PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_MAX: '3', REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() },
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
  const port = await until('the server to listen', () => /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1], 20_000);
  const base = `http://127.0.0.1:${port}`;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { headers }).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'), body: await r.text() }));
  const problem = 'application/problem+json; charset=utf-8';

  t.equal((await get('/healthz')).status, 200);
  t.equal((await get('/api/v1/gameservers')).status, 401);
  const created = await fetch(`${base}/api/v1/apikeys`, { method: 'POST', headers: { ...BASIC_ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'audited', role: 'viewer' }) });
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
  t.equal((await get('/api/v1/gameservers', { authorization: `Basic ${Buffer.from('root:wrong-password').toString('base64')}` })).status, 401);
  t.equal((await get('/readyz')).status, 200);

  const lines = await until('nine audit lines', () => {
    const parsed = stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
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
    t.match(line, { timestamp: String, level: 'audit', role: String, clientIP: '127.0.0.1', userAgent: String, requestId: String, authMethod: String, durationMs: Number });
  }
  t.match(lines[2], { role: 'viewer', authMethod: 'apikey', userAgent: 'audit-test/1.0' });
  t.notOk(lines.some((l) => l.path === '/healthz' || l.path === '/readyz'), 'probes are not audited');

  const everything = stdout + stderr;
  const basicHeader = (BASIC_ADMIN.authorization.split(' ')[1]) as string;
  for (const secret of [key, key.slice(4, 20), ADMIN_PASSWORD, basicHeader, 'wrong-password', Buffer.from('root:wrong-password').toString('base64')]) {
    t.notOk(everything.includes(secret), 'no credential in any output line');
  }
});
