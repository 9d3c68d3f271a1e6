import http from 'node:http';
import t from 'tap';
import fc from 'fast-check';
import { operationsOf, problemWithAnswer, requests, send } from '@gsp/service-kit/testing';
import { Tally } from '@gsp/service-kit/testing/tally';
import type { FuzzResponse, OpenApiDocument } from '@gsp/service-kit/testing';
import { bearer, build, PLATFORM_ADMIN, registerCluster, seedTenant } from './helper.js';

/** How many requests one run generates; FUZZ_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);

/**
 * OFREP has its own error shape (`errorCode`, `errorDetails`) and answers 401/403 with no body, as
 * its specification says. A path that cannot even be routed (a malformed percent-encoding) is
 * answered before anyone knows it is OFREP's, with the server's problem+json.
 */
function ofrepProblem(res: FuzzResponse): string | undefined {
  if (res.status >= 500) return `answered ${res.status}: ${res.body.slice(0, 300)}`;
  if (res.status === 401 || res.status === 403 || res.status < 400) return undefined;
  if (String(res.headers['content-type']).startsWith('application/problem+json')) return undefined;
  try {
    const body = JSON.parse(res.body) as { errorDetails?: unknown };
    return typeof body.errorDetails === 'string'
      ? undefined
      : `answered ${res.status} without errorDetails: ${res.body.slice(0, 300)}`;
  } catch {
    return `answered ${res.status} with a body that is not JSON: ${res.body.slice(0, 300)}`;
  }
}

t.test('every route of /openapi.json answers generated bad input with a 4xx problem, never a 5xx', async (t) => {
  const { app } = await build(t);
  await seedTenant(app, 'acme', { ada: 'admin', olivia: 'operator', vic: 'viewer' });
  const cluster = await registerCluster(app, 'acme', 'one');
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  t.teardown(() => agent.destroy());

  const doc = (await app.inject('/openapi.json')).json() as OpenApiDocument;
  const ops = operationsOf(doc);
  t.ok(ops.length >= 20, `${ops.length} operations in /openapi.json`);
  const credentials = await Promise.all([PLATFORM_ADMIN, 'ada', 'olivia', 'vic', 'stranger'].map((s) => bearer(s)));
  const plausible = ['acme', cluster.id, 'cli_access.enabled', 'ada', 'olivia', PLATFORM_ADMIN, 'one'];
  const tally = new Tally();
  await fc.assert(
    fc.asyncProperty(requests(ops, { credentials, plausible }), async (req) => {
      const res = await send(url, req, agent);
      tally.count(res.status);
      const wrong = req.path.startsWith('/ofrep/') ? ofrepProblem(res) : problemWithAnswer(res);
      if (wrong) throw new Error(`${req.method} ${req.path} (${req.route}) ${wrong}`);
    }),
    { numRuns: RUNS, includeErrorInReport: true },
  );
  t.comment(`${tally.sent} generated requests over ${ops.length} operations; statuses ${tally}`);
  t.ok(
    [...tally.statuses.keys()].some((s) => s < 300),
    'some requests went all the way through',
  );
});
