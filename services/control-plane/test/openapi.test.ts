import t from 'tap';
import { ROUTES } from '../src/rbac/table.js';
import type { RouteSpec } from '../src/rbac/table.js';
import { documentedOperations } from '@gsp/service-kit/testing/openapi-doc';
import type { ServedDocument } from '@gsp/service-kit/testing/openapi-doc';
import { build, startKube } from './helper.js';

type Document = ServedDocument<{ resource: string; verb: string }>;

/** The spec's public routes (section 5) and the panel's sign-in and sign-out: every other one is authenticated. */
const PUBLIC = new Set(['GET /healthz', 'GET /readyz', 'POST /panel/auth/sign-in', 'POST /panel/auth/logout']);
/** Routes that answer without credentials too, and say who is calling when there are some. */
const OPTIONAL = new Set(['GET /panel/auth/session']);
/** Any one of the schemes of section 5 authenticates. */
const AUTHENTICATED = [{ apiKey: [] }, { bearer: [] }, { basic: [] }];
const PROBLEM = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

const kube = await startKube(t);
const { app } = await build(t, kube);
const doc = (await app.inject('/openapi.json')).json() as Document;

const operations = documentedOperations(doc);
/** The route table by the operation's name, in OpenAPI's path syntax. */
const table = new Map<string, RouteSpec>(
  Object.values(ROUTES).map((spec: RouteSpec) => [`${spec.method} ${spec.url.replace(/:(\w+)/g, '{$1}')}`, spec]),
);

/** Every `$ref` in `node`, with where it was found. */
function refsOf(node: unknown, at: string, found: [string, string][] = []): [string, string][] {
  if (Array.isArray(node)) node.forEach((v, i) => refsOf(v, `${at}/${i}`, found));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') found.push([at, v]);
      else refsOf(v, `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, found);
    }
  }
  return found;
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((p) => decodeURIComponent(p).replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      root,
    );
}

t.test('/openapi.json is an OpenAPI 3.1 document whose references all resolve', async (t) => {
  t.equal(doc.openapi, '3.1.0');
  t.ok(doc.info.title && doc.info.version, 'info has a title and a version');
  t.ok(operations.length >= 10, `${operations.length} operations`);
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'basic', 'bearer']);
  t.match(
    doc.components.schemas?.Problem,
    { type: 'object', properties: { type: {}, title: {}, status: {}, detail: {}, requestId: {} } },
    'the Problem schema is a named component',
  );
  t.notOk(doc.paths['/openapi.json'], 'the document does not list itself');
  for (const path of Object.keys(doc.paths)) {
    t.notMatch(path, /[:*]/, `${path} uses {param} syntax`);
  }
  const refs = refsOf(doc, '#');
  t.ok(refs.length > 0, `${refs.length} references`);
  for (const [at, ref] of refs) {
    t.ok(resolvePointer(doc, ref) !== undefined, `${ref} at ${at} resolves within the document`);
  }
});

t.test("the panel's session route answers signed out without credentials", async (t) => {
  const res = await app.inject('/panel/auth/session');
  t.equal(res.statusCode, 200);
  t.equal(res.json().signedIn, false);
});

t.test('every operation documents its security, its success, its errors and its permission', async (t) => {
  for (const { name, path, op } of operations) {
    t.test(name, async (t) => {
      const isPublic = PUBLIC.has(name);
      t.same(
        op.security,
        isPublic ? [] : OPTIONAL.has(name) ? [{}, ...AUTHENTICATED] : AUTHENTICATED,
        isPublic ? 'public: security []' : 'an API key, a bearer token or Basic',
      );
      for (const requirement of op.security ?? []) {
        for (const scheme of Object.keys(requirement))
          t.ok(doc.components.securitySchemes[scheme], `scheme ${scheme} is declared`);
      }

      const responses = op.responses ?? {};
      const successes = Object.keys(responses).filter((s) => s.startsWith('2'));
      t.ok(successes.length > 0, `documents its success (${successes.join(', ') || 'none'})`);
      for (const status of successes) {
        const content = responses[status]?.content;
        if (status === '204') {
          t.equal(content, undefined, '204: no body');
        } else {
          const media = Object.values(content ?? {});
          t.ok(
            media.length > 0 && media.every((m) => Object.keys(m.schema ?? {}).length > 0),
            `${status}: a body with a schema`,
          );
        }
      }

      const params = (op.parameters ?? []).filter((p) => p.in === 'path');
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      t.same(
        params.map((p) => p.name).sort(),
        [...templated].sort(),
        'a parameter for each {name} of the path, and no other',
      );
      for (const p of params) t.equal(p.required, true, `path parameter ${p.name} is required`);

      const errors = Object.keys(responses).filter((s) => Number(s) >= 400);
      const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
      if (takesInput) t.ok(errors.includes('400'), 'documents 400 for bad input');
      if (params.length > 0) t.ok(errors.includes('404'), 'documents 404 for what the path names');
      if (!isPublic) {
        for (const code of ['401', '429', '503']) t.ok(errors.includes(code), `documents ${code}`);
        t.ok(
          responses['429']?.headers?.['Retry-After'] && responses['503']?.headers?.['Retry-After'],
          '429 and 503 say Retry-After',
        );
        const spec = table.get(name);
        if (OPTIONAL.has(name)) return;
        t.ok(spec, 'is in the route table');
        t.same(op['x-permission'], spec?.permission, 'x-permission is the route table entry');
        t.equal(op['x-minimum-role'], spec?.minimumRole, 'x-minimum-role is the route table entry');
      }
      if (op['x-permission'] !== undefined) t.ok(errors.includes('403'), 'documents 403');
      for (const code of errors) t.same(responses[code]?.content, PROBLEM, `${code}: problem+json`);
    });
  }
});

t.test('an authenticated operation called without credentials answers the documented 401 problem', async (t) => {
  for (const { name, method, path } of operations.filter((o) => !PUBLIC.has(o.name) && !OPTIONAL.has(o.name))) {
    const url = path.replace(/\{[^}]+\}/g, 'openapi-probe');
    const res = await app.inject({
      method: method as 'GET',
      url,
      ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }),
    });
    t.equal(res.statusCode, 401, `${name}: 401`);
    t.match(res.headers['content-type'], /^application\/problem\+json/, `${name}: problem+json`);
    t.match(
      res.json(),
      { type: String, title: String, status: 401, detail: String, requestId: String },
      `${name}: in the Problem shape`,
    );
  }
});
