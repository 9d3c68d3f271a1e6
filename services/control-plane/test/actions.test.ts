import t from 'tap';
import type { Test as Tap } from 'tap';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeLite } from '@gsp/kube-lite';
import {
  BASIC_ADMIN,
  GAME_PROFILE,
  TEST_REDIS_URL,
  build,
  buildWithProfiles,
  createBareGameServer,
  createKey,
  kubectl,
  postAction,
  readyServer,
  redisPrefix,
  refusedWhileHeld,
  until,
} from './helper.js';

const PROFILE = {
  ...GAME_PROFILE,
  restartCommand: ['restart'],
  actions: {
    say: { command: ['printf', '[%s]\\n'], timeoutSeconds: 5, description: 'prints each argument on its own line' },
    slow: { command: ['sleep', '30'], timeoutSeconds: 2 },
    // Long enough for another replica to be refused even on a loaded machine.
    long: { command: ['sleep', '30'], timeoutSeconds: 8 },
    fail: { command: ['false'] },
    flood: { command: ['seq', '100000'], timeoutSeconds: 10 },
  },
};

const setUp = (t: Tap, env: Record<string, string> = {}) => buildWithProfiles(t, { arena: PROFILE }, { env });

const stateIn = async (kube: KubeLite, name: string) =>
  (await kubectl(kube, ['get', 'gs', name, '-n', 'games', '-o', 'jsonpath={.status.state}'])).stdout;

t.test('allocate goes through a GameServerAllocation that can only pick this server', async (t) => {
  const { app, kube } = await setUp(t);
  await readyServer(app, 'one');
  await readyServer(app, 'two');
  const res = await postAction(app, 'two', 'allocate');
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), { action: 'allocate', gameServer: { name: 'two', state: 'Allocated' } });
  t.equal(await stateIn(kube, 'two'), 'Allocated');
  t.equal(await stateIn(kube, 'one'), 'Ready', 'the other Ready server was not picked');
  const again = await postAction(app, 'two', 'allocate');
  t.equal(again.statusCode, 409);
  t.match(again.json(), { detail: /allocate needs a game server in state Ready; games\/two is Allocated/ });
});

t.test('reserve holds a Ready server out of allocation for the given time', async (t) => {
  const { app, kube } = await setUp(t);
  await readyServer(app, 'held');
  t.equal((await postAction(app, 'held', 'reserve')).statusCode, 400, 'reserve needs a duration');
  t.equal((await postAction(app, 'held', 'reserve', ['forever'])).statusCode, 400);
  const res = await postAction(app, 'held', 'reserve', ['5m']);
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), { gameServer: { state: 'Reserved' } });
  const until_ = Date.parse(
    (await kubectl(kube, ['get', 'gs', 'held', '-n', 'games', '-o', 'jsonpath={.status.reservedUntil}'])).stdout,
  );
  t.ok(until_ > Date.now() + 4 * 60_000 && until_ <= Date.now() + 5 * 60_000, 'reservedUntil is five minutes ahead');
  t.equal((await postAction(app, 'held', 'allocate')).statusCode, 409, 'a Reserved server is not allocated');
});

t.test('shutdown moves the server to Shutdown and Agones removes it', async (t) => {
  const { app, kube } = await setUp(t);
  await readyServer(app, 'bye');
  const res = await postAction(app, 'bye', 'shutdown');
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), { gameServer: { state: 'Shutdown' } });
  await until(
    'removed',
    async () => (await kubectl(kube, ['get', 'gs', '-n', 'games', '-o', 'name'])).stdout.trim() === '',
  );
  t.equal((await postAction(app, 'bye', 'shutdown')).statusCode, 404);
});

t.test("restart runs the profile's restartCommand: the server keeps its name and state", async (t) => {
  const { app, kube } = await setUp(t);
  await readyServer(app, 'again');
  const res = await postAction(app, 'again', 'restart');
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), { action: 'restart', exitCode: 0 });
  t.equal(await stateIn(kube, 'again'), 'Ready');
  await createBareGameServer(kube, 'games', 'plain');
  await until('plain Ready', async () => (await stateIn(kube, 'plain')) === 'Ready');
  await until(
    'plain cached',
    async () => (await app.inject({ url: '/api/v1/gameservers/games/plain', headers: BASIC_ADMIN })).statusCode === 200,
  );
  const none = await postAction(app, 'plain', 'restart');
  t.equal(none.statusCode, 409);
  t.match(none.json(), { detail: /not created from a profile/ });
});

t.test('a profile action gets its args as separate argv elements, never through a shell', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'cmd');
  const res = await postAction(app, 'cmd', 'say', ['hello world', '; rm -rf /', '$(id)', '']);
  t.equal(res.statusCode, 200, res.body);
  const body = res.json() as {
    exitCode: number;
    stdout: string;
    stderr: string;
    truncated: boolean;
    durationMs: number;
  };
  t.equal(body.exitCode, 0);
  t.equal(body.stdout, '[hello world]\n[; rm -rf /]\n[$(id)]\n[]\n', 'each arg reached printf as one literal element');
  t.equal(body.truncated, false);
  t.ok(body.durationMs >= 0);
  const failed = await postAction(app, 'cmd', 'fail');
  t.equal(failed.statusCode, 200, 'the command ran; it failed');
  t.equal((failed.json() as { exitCode: number }).exitCode, 1);
  const nul = await postAction(app, 'cmd', 'say', ['a\u0000b']);
  t.equal(nul.statusCode, 400, 'NUL cannot be an argv element');
  t.match(nul.json(), { detail: /^args\[0\] must not contain NUL characters/ });
});

t.test('output past 64 KiB is cut and marked truncated', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'loud');
  const res = await postAction(app, 'loud', 'flood');
  t.equal(res.statusCode, 200, res.body);
  const body = res.json() as { stdout: string; truncated: boolean };
  t.equal(body.truncated, true);
  t.equal(Buffer.byteLength(body.stdout), 64 * 1024);
  t.ok(body.stdout.startsWith('1\n2\n3\n'));
});

t.test('a command past its timeoutSeconds is stopped and answers 504', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'stuck');
  const started = Date.now();
  const res = await postAction(app, 'stuck', 'slow');
  t.equal(res.statusCode, 504);
  t.match(res.headers['content-type'], /application\/problem\+json/);
  t.match(res.json(), { detail: /did not finish within 2 s/ });
  t.ok(Date.now() - started < 5000, 'answered at the timeout, not when the command would have ended');
  t.equal((await postAction(app, 'stuck', 'say', ['after'])).statusCode, 200, 'the lock was released');
});

t.test('unknown actions are 404 naming what exists; actions on a server in the wrong state are 409', async (t) => {
  const { app, kube } = await setUp(t);
  await readyServer(app, 'x');
  const unknown = await postAction(app, 'x', 'explode');
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json(), {
    detail: /no action explode.*allocate, reserve, restart, shutdown.*arena defines fail, flood, long, say, slow/,
  });
  t.equal((await postAction(app, 'nope', 'allocate')).statusCode, 404, 'unknown game server');
  // Stop the Agones controller's progress: a server that is Shutdown but not yet gone.
  await kube.kubeConfig.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
    {
      group: 'agones.dev',
      version: 'v1',
      namespace: 'games',
      plural: 'gameservers',
      name: 'x',
      body: { metadata: { finalizers: ['test/hold'] } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const shutdown = await postAction(app, 'x', 'shutdown');
  t.equal(shutdown.statusCode, 200, shutdown.body);
  await until(
    'Shutdown seen',
    async () =>
      ((await app.inject({ url: '/api/v1/gameservers/games/x', headers: BASIC_ADMIN })).json() as { state: string })
        .state === 'Shutdown',
  );
  const late = await postAction(app, 'x', 'say', ['hi']);
  t.equal(late.statusCode, 409);
  t.match(late.json(), { detail: /is being deleted|is Shutdown/ });
});

t.test(
  'args up to the documented limits are accepted; more args are refused naming the rule, not with 413',
  async (t) => {
    const { app } = await setUp(t);
    await readyServer(app, 'big');
    // The largest args the rules allow, in characters JSON escapes to six bytes each.
    const largest = Array.from({ length: 64 }, () => '\u0001'.repeat(4096));
    const res = await postAction(app, 'big', 'say', largest);
    t.equal(res.statusCode, 200, res.body.slice(0, 300));
    const many = await postAction(
      app,
      'big',
      'say',
      Array.from({ length: 10_000 }, () => 'a'),
    );
    t.equal(many.statusCode, 400, many.body.slice(0, 300));
    t.match(many.json(), { detail: /args.*at most 64/ });
    const wide = await postAction(
      app,
      'big',
      'say',
      Array.from({ length: 64 }, () => 'é'.repeat(4096)),
    );
    t.equal(wide.statusCode, 400, 'two-byte characters make them twice as large');
    t.match(wide.json(), { detail: /args must total at most 262144 bytes/ });
    const long = await postAction(app, 'big', 'say', ['x'.repeat(4097)]);
    t.equal(long.statusCode, 400);
    t.match(long.json(), { detail: /at most 4096 characters/ });
  },
);

t.test('names every object inherits are unknown actions, not a 500', async (t) => {
  const { app } = await setUp(t);
  await readyServer(app, 'proto');
  for (const action of ['constructor', 'tostring', 'valueof', 'hasownproperty']) {
    const res = await postAction(app, 'proto', action);
    t.equal(res.statusCode, 404, `${action}: ${res.body}`);
    t.match(res.json(), { detail: new RegExp(`no action ${action} for game server games/proto`) });
  }
  // Not lower-case: refused by the path's rule before any lookup.
  for (const action of ['toString', 'hasOwnProperty', '__proto__'])
    t.equal((await postAction(app, 'proto', action)).statusCode, 400, action);
});

t.test('one action at a time per game server, across replicas sharing Redis', async (t) => {
  const env = { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: redisPrefix() };
  const a = await buildWithProfiles(t, { arena: PROFILE }, { env });
  const b = await build(t, a.kube, env);
  await until(
    'profile on b',
    async () => (await b.app.inject({ url: '/api/v1/profiles/arena', headers: BASIC_ADMIN })).statusCode === 200,
  );
  await readyServer(a.app, 'shared');
  await until(
    'server on b',
    async () =>
      (await b.app.inject({ url: '/api/v1/gameservers/games/shared', headers: BASIC_ADMIN })).statusCode === 200,
  );
  const { refused, held } = await refusedWhileHeld(
    'b refused while a runs',
    () => postAction(a.app, 'shared', 'long'),
    () => postAction(b.app, 'shared', 'say', ['x']),
  );
  t.match(refused.json(), { detail: /action long is already running on game server games\/shared/ });
  t.equal((await held).statusCode, 504);
  t.equal((await postAction(b.app, 'shared', 'say', ['x'])).statusCode, 200, 'free again once it ended');
});

t.test(
  'operators run actions; viewers may not; audit lines name target, action and outcome but never args',
  async (t) => {
    const { app, audit } = await setUp(t);
    await readyServer(app, 'aud');
    const operator = await createKey(app, 'op', 'operator');
    const viewer = await createKey(app, 'view', 'viewer');
    t.equal((await postAction(app, 'aud', 'say', ['secret-arg-value'], { 'x-api-key': operator })).statusCode, 200);
    t.equal((await postAction(app, 'aud', 'say', ['x'], { 'x-api-key': viewer })).statusCode, 403);
    const lines = audit.lines().filter((l) => String(l.path).includes('/actions/'));
    t.equal(lines.length, 2, 'one line per request');
    t.match(lines[0], {
      method: 'POST',
      status: 200,
      target: 'games/aud',
      action: 'say',
      outcome: 'exit 0',
      role: 'operator',
    });
    t.match(lines[1], { status: 403, target: 'games/aud', action: 'say', result: 'failure' });
    t.notMatch(audit.text.join(''), /secret-arg-value/, 'args never reach the audit');
    t.notMatch(audit.text.join(''), new RegExp(operator), 'nor the key');
  },
);
