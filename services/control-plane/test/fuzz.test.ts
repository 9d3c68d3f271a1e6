import http from 'node:http';
import t from 'tap';
import fc from 'fast-check';
import { operationsOf, problemWithAnswer, requests, send } from '@gsp/service-kit/testing';
import type { OpenApiDocument } from '@gsp/service-kit/testing';
import { Tally } from '@gsp/service-kit/testing/tally';
import { BASIC_ADMIN, build, startKube } from './helper.js';

/** How many requests one run generates; FUZZ_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

/** Polls without sleeping past the deadline (the audit line is written when the answer has gone out). */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setImmediate(r));
  }
  return true;
}

t.test(
  'every route of /openapi.json answers generated bad input with a 4xx problem, ' +
    'never a 5xx, and audits each request once',
  async (t) => {
    const kube = await startKube(t);
    // Budgets high enough that the fuzzer reaches the handlers rather than the limiters.
    const { app, audit } = await build(t, kube, { RATE_LIMIT_MAX: '1000000', AUTH_FAILURE_LIMIT: '1000000' });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    t.teardown(() => agent.destroy());

    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/apikeys',
      headers: BASIC_ADMIN,
      payload: { name: 'fuzz-viewer', role: 'viewer' },
    });
    t.equal(created.statusCode, 201);
    const viewer = { 'x-api-key': (created.json() as { key: string }).key };
    const doc = (await app.inject({ url: '/openapi.json', headers: BASIC_ADMIN })).json() as OpenApiDocument;
    const ops = operationsOf(doc);
    t.ok(ops.length >= 8, `${ops.length} operations in /openapi.json`);
    const tally = new Tally();
    const unaudited = (path: string) =>
      path === '/healthz' || path === '/readyz' || path.startsWith('/healthz?') || path.startsWith('/readyz?');
    await fc.assert(
      fc.asyncProperty(
        requests(ops, { credentials: [BASIC_ADMIN, viewer], plausible: ['default', 'games', 'fuzz-viewer', 'gs-1'] }),
        async (req) => {
          const before = audit.lines().length;
          const res = await send(url, req, agent);
          tally.count(res.status);
          const wrong = problemWithAnswer(res);
          if (wrong) throw new Error(`${req.method} ${req.path} (${req.route}) ${wrong}`);
          const expected = unaudited(req.path) ? 0 : 1;
          await until(() => audit.lines().length - before >= expected, 1000);
          const written = audit.lines().length - before;
          if (written !== expected)
            throw new Error(`${req.method} ${req.path} (${req.route}) wrote ${written} audit lines, not ${expected}`);
        },
      ),
      { numRuns: RUNS, includeErrorInReport: true },
    );
    t.comment(`${tally.sent} generated requests over ${ops.length} operations; statuses ${tally}`);
    t.ok(
      [...tally.statuses.keys()].some((s) => s < 300),
      'some requests went all the way through',
    );
  },
);
