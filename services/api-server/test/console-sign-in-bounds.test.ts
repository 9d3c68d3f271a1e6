import t from 'tap';
import pg from 'pg';
import { until } from './helper.js';
import { Browser } from '@gsp/test-kit/oidc';
import { signIn, startConsoleStack } from './console-auth-stack.js';
import type { ConsoleStackOptions } from './console-auth-stack.js';

/*
 * What anonymous sign-in starts can leave behind in `console_logins`: at most CONSOLE_SIGN_IN_LIMIT
 * under way per client address, a returnTo of bounded size, and rows nobody came back for deleted
 * by themselves.
 */

type Tap = Parameters<typeof startConsoleStack>[0];

async function consoleWith(t: Tap, options: ConsoleStackOptions = {}) {
  const stack = await startConsoleStack(t, { replicas: 1, ...options });
  const db = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
  t.teardown(() => db.end());
  const pending = async () =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM console_logins')).rows[0]!.n;
  return { stack, app: stack.replicas[0]!.app, db, pending };
}

t.test('300 anonymous sign-in starts from one address leave a bounded number of rows', async (t) => {
  const { app, pending } = await consoleWith(t);
  const start = (remoteAddress: string, headers: Record<string, string> = {}) =>
    app.inject({ url: `/console/auth/login?returnTo=/console/${'a'.repeat(600)}`, remoteAddress, headers });

  const statuses = new Map<number, number>();
  let refusal: Awaited<ReturnType<typeof start>> | undefined;
  for (let i = 0; i < 300; i++) {
    const res = await start('10.30.0.1');
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    if (res.statusCode === 429) refusal ??= res;
  }
  t.same(Object.fromEntries(statuses), { 303: 30, 429: 270 }, 'the first 30 start, the rest are refused');
  t.equal(await pending(), 30, 'one row per start let through');
  t.match(refusal?.headers['content-type'], /application\/problem\+json/);
  t.match(refusal?.json().detail, /too many sign-ins are under way from this address \(at most 30/);
  const retryAfter = Number(refusal?.headers['retry-after']);
  t.ok(retryAfter > 0 && retryAfter <= 600, `Retry-After says when the oldest one expires (${retryAfter} s)`);

  const page = await start('10.30.0.1', { accept: 'text/html' });
  t.equal(page.statusCode, 429);
  t.match(page.headers['content-type'], /^text\/html/, 'a browser is told in a page');
  t.ok(page.headers['retry-after'], 'with Retry-After');
  t.equal((await start('10.30.0.2')).statusCode, 303, 'another address still signs in');
});

t.test('parallel starts from one address do not pass the limit together', async (t) => {
  const { app, pending } = await consoleWith(t, { env: { CONSOLE_SIGN_IN_LIMIT: '5' } });
  const answers = await Promise.all(
    Array.from({ length: 40 }, () => app.inject({ url: '/console/auth/login', remoteAddress: '10.30.0.3' })),
  );
  t.equal(answers.filter((res) => res.statusCode === 303).length, 5);
  t.equal(await pending(), 5);
});

t.test('finished sign-ins do not count: a user may sign in again and again', async (t) => {
  const { stack, pending } = await consoleWith(t, { env: { CONSOLE_SIGN_IN_LIMIT: '1' } });
  for (let i = 0; i < 3; i++) {
    const { response } = await signIn(new Browser(), stack, 'alice');
    t.equal(response.status, 303, `sign-in ${i + 1}`);
  }
  t.equal(await pending(), 0);
});

t.test('a sign-in nobody came back for is deleted by itself once it expires', async (t) => {
  const { app, db, pending } = await consoleWith(t, { env: { CONSOLE_SIGN_IN_SWEEP_INTERVAL: '20ms' } });
  for (let i = 0; i < 2; i++) t.equal((await app.inject({ url: '/console/auth/login' })).statusCode, 303);
  await db.query(
    `INSERT INTO console_sessions (id_hash, subject, name, expires_at)
     VALUES ('ended', 'x#y', 'Y', now() - interval '1 s')`,
  );
  // Ten minutes on for one of the two, and nobody signs in meanwhile.
  const expired = await db.query<{ state_hash: string }>(
    `UPDATE console_logins SET expires_at = now() - interval '1 second'
     WHERE state_hash = (SELECT min(state_hash) FROM console_logins) RETURNING state_hash`,
  );
  await until('the expired sign-in to be deleted', async () => ((await pending()) === 1 ? true : undefined));
  const left = await db.query<{ state_hash: string }>('SELECT state_hash FROM console_logins');
  t.not(left.rows[0]?.state_hash, expired.rows[0]?.state_hash, 'the live one is kept');
  await until('the ended session to be deleted', async () =>
    (await db.query('SELECT 1 FROM console_sessions')).rowCount === 0 ? true : undefined,
  );
  t.pass('and an ended session with it');
});

t.test('a returnTo longer than 2048 characters is a 400 problem, and keeps nothing', async (t) => {
  const { app, pending } = await consoleWith(t);
  const res = await app.inject({ url: `/console/auth/login?returnTo=/console/${'a'.repeat(2100)}` });
  t.equal(res.statusCode, 400);
  t.match(res.headers['content-type'], /application\/problem\+json/);
  t.equal(await pending(), 0);
});
