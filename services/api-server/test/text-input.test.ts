import t from 'tap';
import { WELL_FORMED_RULE } from '@gsp/platform-contract';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

const FLAG = 'cli_access.enabled';
const PLATFORM_URL = `/api/v1/platform/feature-flags/${FLAG}`;

interface Refusal {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): unknown;
}

const switchWrites = async (app: Awaited<ReturnType<typeof build>>['app']): Promise<number> =>
  Number((await app.pg.query("SELECT count(*) AS n FROM audit_events WHERE action LIKE 'featureflags.%'")).rows[0].n);

t.test('half a character in a switch reason is a 400 naming #/reason at both scopes, never a 500', async (t) => {
  const { app } = await build(t);
  await seedTenant(app, 'acme', { olga: 'operator' });
  const cluster = await registerCluster(app, 'acme', 'eu-1');
  const scopes = [
    [PLATFORM_URL, PLATFORM_ADMIN],
    [`/api/v1/tenants/acme/clusters/${cluster.id}/feature-flags/${FLAG}`, 'olga'],
  ] as const;
  // The reproductions, and each kind of half: high, low, a pair in the wrong order.
  for (const reason of ['\udc00', 'a\ud800b', 'incident \udbff', '\ude00\ud83d']) {
    for (const [url, subject] of scopes) {
      const res: Refusal = await app.inject({
        method: 'PUT',
        url,
        headers: await bearer(subject),
        payload: { value: true, reason },
      });
      const what = `${JSON.stringify(reason)} at ${url}`;
      t.equal(res.statusCode, 400, `${what}: 400`);
      t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      t.match(
        res.json(),
        { detail: `reason ${WELL_FORMED_RULE}`, errors: [{ in: 'body', pointer: '#/reason' }] },
        what,
      );
    }
  }
  t.equal(await switchWrites(app), 0, 'nothing was written');
  const paired = await app.inject({
    method: 'PUT',
    url: PLATFORM_URL,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { value: true, reason: 'all clear 😀' },
  });
  t.equal(paired.statusCode, 200, 'a whole character made of a surrogate pair (an emoji) is fine');
});

t.test(
  'invisible and bidirectional characters in a reason are refused, and so is a reason with nothing visible',
  async (t) => {
    const { app } = await build(t);
    const admin = await bearer(PLATFORM_ADMIN);
    const put = (reason: string) =>
      app.inject({ method: 'PUT', url: PLATFORM_URL, headers: admin, payload: { value: false, reason } });
    const invisible: [string, string][] = [
      ['an Arabic letter mark', '\u061c'],
      ['a zero-width space', '\u200b'],
      ['a zero-width non-joiner', '\u200c'],
      ['a zero-width joiner', '\u200d'],
      ['a word joiner', '\u2060'],
      ['a byte order mark', '\ufeff'],
      ['a tag character', '\u{e0041}'],
      ['a language tag', '\u{e0001}'],
      ['a right-to-left isolate', '\u2067'],
      ['a right-to-left mark', '\u200f'],
    ];
    for (const [name, char] of invisible) {
      for (const reason of [`incident${char} 42`, char]) {
        const res = await put(reason);
        t.equal(res.statusCode, 400, `${name} in ${JSON.stringify(reason)}: 400`);
        t.match(res.json(), { errors: [{ in: 'body', pointer: '#/reason', detail: /must be printable/ }] });
      }
    }
    for (const blank of ['\u3164', ' \u3164 \u2800 ', '\u0301', '\ufe0f']) {
      const res = await put(blank);
      t.equal(res.statusCode, 400, `${JSON.stringify(blank)} has no visible character: 400`);
      t.match(res.json(), { errors: [{ pointer: '#/reason', detail: /must not be blank/ }] });
    }
    t.equal(await switchWrites(app), 0, 'nothing was written');

    // Characters are counted as people count them: 200 emoji fit, 201 do not.
    t.equal((await put('🚧'.repeat(200))).statusCode, 200, '200 emoji (400 UTF-16 units) are 200 characters');
    t.match((await put('🚧'.repeat(201))).json(), {
      errors: [{ pointer: '#/reason', detail: 'reason must be at most 200 characters long' }],
    });
    t.equal(
      (await put('Wartung: Knoten 3 ❤️ – ملاحظة')).statusCode,
      200,
      'letters of any script, emoji and marks are fine',
    );
  },
);

t.test('a bearer token whose subject holds half a character is refused as not valid', async (t) => {
  const { app } = await build(t);
  const res = await app.inject({ url: '/api/v1/platform/feature-flags', headers: await bearer('mallory\ud800') });
  t.equal(res.statusCode, 401);
  t.match(res.json(), { detail: /half of a character/ });
  t.equal(
    (await app.inject({ url: '/api/v1/platform/feature-flags', headers: await bearer('alice') })).statusCode,
    200,
  );
});
