import t from 'tap';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import { InvalidRequestError, problems } from '@gsp/service-kit';

const Role = Type.Union([Type.Literal('admin'), Type.Literal('operator'), Type.Literal('viewer')]);

/** An app with the problem handler and routes whose schemas fail in each of the ways a client can. */
async function app(t: Tap, compiler: 'typebox' | 'ajv' = 'typebox'): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  if (compiler === 'typebox') app.setValidatorCompiler(TypeBoxValidatorCompiler);
  await app.register(problems, {
    ownCodePrefix: 'TEST_',
    unavailable: (err) =>
      (err as { code?: unknown }).code === 'ECONNREFUSED' ? 'the database cannot be reached' : undefined,
  });
  const ok = async () => ({ ok: true });
  app.put(
    '/members/:org',
    {
      schema: {
        params: Type.Object({
          org: Type.String({ pattern: '^[^\\u0000-\\u001f]*$', errorMessage: 'must not contain control characters' }),
        }),
        body: Type.Object({ role: Role }, { additionalProperties: false }),
      },
    },
    ok,
  );
  app.put('/small', { bodyLimit: 64 }, ok);
  app.put('/flags', { schema: { body: Type.Object({ value: Type.Boolean() }, { additionalProperties: false }) } }, ok);
  app.get(
    '/items',
    {
      schema: {
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
          name: Type.Optional(Type.String({ pattern: '^[a-z]+$', description: 'lower-case letters only' })),
          code: Type.Optional(Type.String({ pattern: '^[0-9]{3}$' })),
        }),
      },
    },
    ok,
  );
  app.put(
    '/nested',
    {
      schema: {
        body: Type.Object({
          spec: Type.Object({ replicas: Type.Integer(), ports: Type.Array(Type.Integer()) }),
          note: Type.Union([Type.String(), Type.Null()]),
        }),
      },
    },
    ok,
  );
  app.get('/refused', async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  });
  app.get('/kube', async () => {
    // @kubernetes/client-node's ApiException carries the HTTP status as a number in `code`.
    throw Object.assign(new Error('HTTP-Code: 409 Body: {"secret":"internal"}'), { code: 409 });
  });
  app.get('/own-unavailable', async () => {
    throw Object.assign(new Error('the cluster is not reachable'), { code: 'TEST_UNAVAILABLE', statusCode: 503 });
  });
  app.get('/checked', async () => {
    throw new InvalidRequestError([
      { in: 'path', pointer: '#/org', detail: 'org must not contain control characters' },
    ]);
  });
  t.teardown(() => app.close());
  return app;
}
type Tap = { teardown(fn: () => unknown): void };

t.test('an unknown role names the allowed ones, once', async (t) => {
  const res = await (await app(t)).inject({ method: 'PUT', url: '/members/acme', payload: { role: 'owner' } });
  t.equal(res.statusCode, 400);
  t.match(res.headers['content-type'], /^application\/problem\+json/);
  const body = res.json();
  t.equal(body.detail, 'role must be one of admin, operator, viewer');
  t.same(body.errors, [{ in: 'body', pointer: '#/role', detail: 'role must be one of admin, operator, viewer' }]);
  t.match(body, { type: 'urn:gsp:problem:bad-request', title: 'Bad Request', status: 400, requestId: String });
});

t.test('an extra field is named as unknown, not "schema is false"', async (t) => {
  const res = await (await app(t)).inject({ method: 'PUT', url: '/flags', payload: { value: true, extra: 1 } });
  t.equal(res.statusCode, 400);
  t.equal(res.json().detail, 'unknown field "extra"');
  t.same(res.json().errors, [{ in: 'body', pointer: '#/extra', detail: 'unknown field "extra"' }]);
});

t.test('a wrong type, a missing field and a body that is not an object say what is expected', async (t) => {
  const a = await app(t);
  t.equal(
    (await a.inject({ method: 'PUT', url: '/flags', payload: { value: 'yes' } })).json().detail,
    'value must be a boolean',
  );
  t.equal((await a.inject({ method: 'PUT', url: '/flags', payload: {} })).json().detail, 'value is required');
  t.equal(
    (await a.inject({ method: 'PUT', url: '/flags', payload: [true] })).json().detail,
    'the body must be an object',
  );
});

t.test(
  "a pattern failure uses the schema's errorMessage or description, never the regex when either is there",
  async (t) => {
    const a = await app(t);
    const res = await a.inject({ method: 'PUT', url: '/members/ac%01me', payload: { role: 'viewer' } });
    t.equal(res.statusCode, 400);
    t.same(res.json().errors, [{ in: 'path', pointer: '#/org', detail: 'org must not contain control characters' }]);
    t.equal((await a.inject('/items?name=ABC')).json().detail, 'name is not valid: lower-case letters only');
    t.equal(
      (await a.inject('/items?code=12')).json().detail,
      'code must match the pattern ^[0-9]{3}$',
      'without either, the pattern',
    );
  },
);

t.test('limits and nested fields are named by their path', async (t) => {
  const a = await app(t);
  const limit = await a.inject('/items?limit=0');
  t.same(limit.json().errors, [{ in: 'query', pointer: '#/limit', detail: 'limit must be at least 1' }]);
  const nested = await a.inject({
    method: 'PUT',
    url: '/nested',
    payload: { spec: { replicas: 'two', ports: [80, 'x'] }, note: 3 },
  });
  t.same(
    nested
      .json()
      .errors.map((e: { pointer: string; detail: string }) => [e.pointer, e.detail])
      .sort(),
    [
      ['#/note', 'note must be a string or null'],
      ['#/spec/ports/1', 'spec.ports[1] must be an integer'],
      ['#/spec/replicas', 'spec.replicas must be an integer'],
    ],
  );
});

t.test("Fastify's own (Ajv) validator gets the same sentences", async (t) => {
  const a = Fastify({ logger: false });
  await a.register(problems, { ownCodePrefix: 'TEST_' });
  a.put(
    '/members',
    {
      schema: {
        body: {
          type: 'object',
          required: ['role', 'subject'],
          properties: {
            role: { enum: ['admin', 'operator', 'viewer'] },
            subject: { type: 'string', pattern: '^[a-z]+$', description: 'lower-case letters only' },
          },
        },
      },
    },
    async () => ({ ok: true }),
  );
  t.teardown(() => a.close());
  const bad = await a.inject({ method: 'PUT', url: '/members', payload: { role: 'owner', subject: 'x' } });
  t.same(bad.json().errors, [{ in: 'body', pointer: '#/role', detail: 'role must be one of admin, operator, viewer' }]);
  const missing = await a.inject({ method: 'PUT', url: '/members', payload: { role: 'admin' } });
  t.equal(missing.json().detail, 'subject is required');
  const pattern = await a.inject({ method: 'PUT', url: '/members', payload: { role: 'admin', subject: 'X' } });
  t.equal(pattern.json().detail, 'subject is not valid: lower-case letters only');
});

t.test("a check of the service's own answers like a schema failure", async (t) => {
  const res = await (await app(t)).inject('/checked');
  t.equal(res.statusCode, 400);
  t.same(res.json().errors, [{ in: 'path', pointer: '#/org', detail: 'org must not contain control characters' }]);
  t.equal(res.json().detail, 'org must not contain control characters');
});

t.test('an unavailable dependency is a 503 with Retry-After and no internals', async (t) => {
  const res = await (await app(t)).inject('/refused');
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '2');
  t.match(res.headers['content-type'], /^application\/problem\+json/);
  t.equal(res.json().detail, 'the database cannot be reached');
  t.notMatch(res.body, /ECONNREFUSED|5432/);
});

t.test('every 503 says when to come back', async (t) => {
  const res = await (await app(t)).inject('/own-unavailable');
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '2');
  t.equal(res.json().detail, 'the cluster is not reachable');
});

t.test(
  'an error whose code is a number (a Kubernetes client error) is a 500 without its body, not a crash',
  async (t) => {
    const res = await (await app(t)).inject('/kube');
    t.equal(res.statusCode, 500);
    t.match(res.headers['content-type'], /^application\/problem\+json/);
    t.match(res.json().detail, /quote request id/);
    t.notMatch(res.body, /secret|startsWith/);
  },
);

t.test('a Retry-After the route set is kept', async (t) => {
  const a = Fastify({ logger: false });
  await a.register(problems, { ownCodePrefix: 'TEST_' });
  a.get('/busy', async (_request, reply) => {
    reply.header('retry-after', '7');
    throw Object.assign(new Error('the cluster is busy'), { code: 'TEST_UNAVAILABLE', statusCode: 503 });
  });
  t.teardown(() => a.close());
  const res = await a.inject('/busy');
  t.equal(res.statusCode, 503);
  t.equal(res.headers['retry-after'], '7');
});

t.test('a body over the limit is a 413 naming the limit', async (t) => {
  const res = await (
    await app(t)
  ).inject({
    method: 'PUT',
    url: '/small',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ note: 'x'.repeat(100) }),
  });
  t.equal(res.statusCode, 413);
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  t.equal(res.json().detail, 'the body is larger than 64 bytes, the most this route accepts');
});

t.test('our own 503 is logged as a warning without a stack; any other 5xx as an error with one', async (t) => {
  const lines: { level: number; msg: string; err?: { stack?: string } }[] = [];
  const stream = { write: (line: string) => lines.push(JSON.parse(line) as (typeof lines)[number]) };
  const a = Fastify({ logger: { level: 'info', stream } });
  await a.register(problems, { ownCodePrefix: 'TEST_' });
  a.get('/warming', async () => {
    throw Object.assign(new Error('the cache has not been listed yet'), { code: 'TEST_UNAVAILABLE', statusCode: 503 });
  });
  a.get('/broken', async () => {
    throw new Error('something internal');
  });
  t.teardown(() => a.close());
  const warming = await a.inject('/warming');
  t.equal(warming.statusCode, 503);
  t.equal(warming.headers['retry-after'], '2', 'with the default Retry-After');
  t.equal(warming.json().detail, 'the cache has not been listed yet');
  t.equal((await a.inject('/broken')).statusCode, 500);
  const warned = lines.filter((l) => l.msg === 'service unavailable');
  t.equal(warned.length, 1);
  t.equal(warned[0]?.level, 40, 'a warning');
  t.notOk(warned[0]?.err?.stack, 'without a stack');
  const failed = lines.filter((l) => l.msg === 'request failed');
  t.equal(failed.length, 1, 'only the unexpected error is logged as failed');
  t.equal(failed[0]?.level, 50);
  t.match(failed[0]?.err?.stack, /something internal/);
});
