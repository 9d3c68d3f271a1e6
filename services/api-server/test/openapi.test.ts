import t from 'tap';
import { REASON_MAX_LENGTH } from '@gsp/platform-contract/text';
import { documentedOperations } from '@gsp/service-kit/testing/openapi-doc';
import type { ServedDocument } from '@gsp/service-kit/testing/openapi-doc';
import { build } from './helper.js';

/** Routes anyone may call; every other one needs a bearer token. */
const PUBLIC = new Set(['GET /healthz', 'GET /readyz', 'GET /.well-known/jwks.json']);
/** What succeeds with something other than 200 and a JSON body. */
const SUCCESS: Readonly<Record<string, [status: string, mediaType: string | string[] | undefined]>> = {
  'POST /api/v1/tenants/{org}/clusters': ['201', 'application/json'],
  'DELETE /api/v1/tenants/{org}/members/{subject}': ['204', undefined],
  'DELETE /api/v1/tenants/{org}/clusters/{id}': ['204', undefined],
  'GET /api/v1/tenants/{org}/clusters/{id}/kubeconfig': ['200', 'application/yaml'],
  'GET /ofrep/v1/events': ['200', 'text/event-stream'],
  'GET /api/v1/events': ['200', 'text/event-stream'],
  'GET /api/v1/platform/audit': ['200', ['application/json', 'application/x-ndjson', 'text/csv']],
  'GET /api/v1/tenants/{org}/audit': ['200', ['application/json', 'application/x-ndjson', 'text/csv']],
};

t.test('every operation in /openapi.json documents its security, its success and its errors', async (t) => {
  const { app } = await build(t);
  const doc = (await app.inject('/openapi.json')).json() as ServedDocument<string>;
  t.ok(doc.components.schemas?.Problem, 'the Problem schema is a named component');
  const operations = documentedOperations(doc);
  t.ok(operations.length >= 20, `${operations.length} operations`);

  for (const { name, op } of operations) {
    t.test(name, async (t) => {
      const responses = op.responses ?? {};
      const ofrep = name.includes(' /ofrep/');
      const isPublic = PUBLIC.has(name);

      t.same(op.security, isPublic ? [] : [{ bearer: [] }], isPublic ? 'public: security []' : 'a bearer token');

      const statuses = Object.keys(responses);
      const successes = statuses.filter((s) => s.startsWith('2'));
      const [status, mediaType] = SUCCESS[name] ?? ['200', 'application/json'];
      t.same(successes, [status], `succeeds with ${status}`);
      const success = responses[status]!;
      if (mediaType === undefined) {
        t.equal(success.content, undefined, 'no body');
      } else {
        const types = Array.isArray(mediaType) ? mediaType : [mediaType];
        t.same(Object.keys(success.content ?? {}), types, `the body is ${types.join(' or ')}`);
        for (const type of types) t.ok(Object.keys(success.content?.[type]?.schema ?? {}).length > 0, 'with a schema');
      }

      const errors = statuses.filter((s) => Number(s) >= 400);
      if (!isPublic) t.ok(errors.includes('401'), 'documents 401');
      if (op['x-permission'] !== undefined || ofrep) t.ok(errors.includes('403'), 'documents 403');
      if ((op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined)
        t.ok(errors.includes('400'), 'documents 400 for bad input');
      if (op.requestBody !== undefined)
        t.ok(errors.includes('413') && errors.includes('415'), 'documents 413 and 415 for bodies');
      // Checking a permission reads the database, so every such route can find it unavailable.
      if (op['x-permission'] !== undefined || ofrep || name === 'GET /readyz') {
        t.ok(errors.includes('503'), 'documents 503');
        t.ok(responses['503']?.headers?.['Retry-After'] ?? ofrep, 'with Retry-After');
      }
      for (const code of errors) {
        const content = responses[code]!.content;
        if (ofrep && (code === '401' || code === '403')) {
          t.equal(content, undefined, `${code}: no body, as OFREP says`);
        } else if (ofrep) {
          t.ok(content?.['application/json']?.schema, `${code}: OFREP's JSON error shape`);
        } else {
          t.same(
            content,
            { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
            `${code}: problem+json`,
          );
        }
      }
    });
  }
});

t.test("a switch's reason is documented with the bounds the contract and the console count by", async (t) => {
  const { app } = await build(t);
  const doc = (await app.inject('/openapi.json')).json() as ServedDocument<string>;
  for (const path of [
    '/api/v1/platform/feature-flags/{flag}',
    '/api/v1/tenants/{org}/clusters/{id}/feature-flags/{flag}',
  ]) {
    const body = doc.paths[path]?.put?.requestBody as
      { content: { 'application/json': { schema: { properties: { reason: object } } } } } | undefined;
    t.match(
      body?.content['application/json'].schema.properties.reason,
      { type: 'string', minLength: 1, maxLength: REASON_MAX_LENGTH },
      `PUT ${path}`,
    );
  }
});

t.test('a documented error is what the route answers', async (t) => {
  const { app } = await build(t);
  const res = await app.inject({ url: '/api/v1/tenants/acme/clusters/x/kubeconfig' });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], /^application\/problem\+json/);
  t.match(res.json(), { type: String, title: String, status: 401, detail: String, requestId: String });
});
