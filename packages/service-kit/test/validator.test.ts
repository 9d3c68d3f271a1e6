import t from 'tap';
import fc from 'fast-check';
import { Type } from 'typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { createServiceApp, httpTimeouts, loneSurrogatePath, problems } from '@gsp/service-kit';

/** A service's app with a free-form body, a typed one, and a route that validates its body itself. */
async function serviceApp(t: { teardown(fn: () => unknown): void }) {
  const app = createServiceApp({ logger: false, bodyLimit: 4096, http: httpTimeouts({}), longestPathIdentifier: 64 });
  t.teardown(() => app.close());
  await app.register(problems, { ownCodePrefix: 'TEST_' });
  const echo = async (request: { body: unknown }) => ({ stored: request.body });
  app.put('/notes', { schema: { body: Type.Object({ text: Type.String(), tags: Type.Array(Type.String()) }) } }, echo);
  app.put('/free', { schema: { body: Type.Record(Type.String(), Type.Unknown()) } }, echo);
  // A route's own validator, as the control plane's profiles have: the rule applies all the same.
  const own: FastifySchemaCompiler<unknown> = () => (value) => ({ value });
  app.put('/own', { schema: { body: Type.Unknown() }, validatorCompiler: own }, echo);
  await app.ready();
  return app;
}

t.test('half a character anywhere in any body is a 400 naming where, on every route', async (t) => {
  const app = await serviceApp(t);
  const cases: [string, string, string][] = [
    ['/notes', '{"text":"a\\ud800b","tags":[]}', '#/text'],
    ['/notes', '{"text":"ok","tags":["x","\\udc00"]}', '#/tags/1'],
    ['/free', '{"deep":{"list":[{"k":"\\ude00\\ud83d"}]}}', '#/deep/list/0/k'],
    ['/free', '{"a/b~\\udbff":1}', '#/a~1b~0\udbff'],
    ['/own', '{"motd":"welcome \\udfff"}', '#/motd'],
  ];
  for (const [url, payload, pointer] of cases) {
    const res = await app.inject({ method: 'PUT', url, headers: { 'content-type': 'application/json' }, payload });
    t.equal(res.statusCode, 400, `${url} ${payload}`);
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    t.match(res.json(), {
      detail: /must be well-formed Unicode text: it holds half of a character/,
      errors: [{ in: 'body', pointer }],
    });
  }
  const whole = await app.inject({
    method: 'PUT',
    url: '/notes',
    headers: { 'content-type': 'application/json' },
    payload: '{"text":"\\ud83d\\ude00 ok","tags":["名"]}',
  });
  t.equal(whole.statusCode, 200, 'a pair of halves is one whole character');
  t.same(whole.json(), { stored: { text: '😀 ok', tags: ['名'] } });
});

t.test('loneSurrogatePath finds a half exactly when a value would not survive UTF-8', async (t) => {
  const half = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
  const text = fc
    .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), half), { maxLength: 5 })
    .map((parts) => parts.join(''));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(text, tie('node'), { maxKeys: 3 }),
    ),
  })).node;
  fc.assert(
    fc.property(value, (v) => {
      const survives = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;
      let wellFormed = true;
      JSON.stringify(v, (k, x: unknown) => {
        if (!survives(k) || (typeof x === 'string' && !survives(x))) wellFormed = false;
        return x;
      });
      return (loneSurrogatePath(v) === undefined) === wellFormed;
    }),
    { numRuns: 1000 },
  );
  t.equal(loneSurrogatePath({ a: ['x', { b: 'y\ud800' }] }), '/a/1/b');
  t.equal(loneSurrogatePath({ a: ['😀'] }), undefined);
});
