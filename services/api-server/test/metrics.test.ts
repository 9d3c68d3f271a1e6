import t from 'tap';
import { deepStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS } from '@gsp/service-kit';
import { createApiMetrics } from '../src/metrics.js';

/** The request metrics as prom-client's own Counter and Histogram write them. */
function promClientTwin() {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({
    name: 'gsp_api_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'code'],
    registers,
  });
  const duration = new Histogram({
    name: 'gsp_api_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'],
    buckets: [...DURATION_BUCKETS],
    registers,
  });
  return { registry, requests, duration };
}

const requestLines = async (registry: Registry) =>
  (await registry.metrics())
    .split('\n')
    .filter((line) => line.includes('gsp_api_'))
    .sort();

const answered = fc.record({
  method: fc.constantFrom('GET', 'PUT', 'DELETE'),
  route: fc.constantFrom('/api/v1/platform/feature-flags', '/api/v1/tenants/:org', 'unmatched', 'a "quoted"\\route'),
  status: fc.constantFrom(200, 400, 401, 404, 503),
  // Around and on the bucket bounds, and past the last one.
  seconds: fc.oneof(fc.constantFrom(...DURATION_BUCKETS, 0, 3), fc.double({ min: 0, max: 5, noNaN: true })),
});

t.test('a scrape reads the same request counts and latency buckets as prom-client would write', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(answered, { maxLength: 60 }), async (requests) => {
      const ours = createApiMetrics();
      const twin = promClientTwin();
      for (const { method, route, status, seconds } of requests) {
        ours.requests.record(method, route, status, seconds);
        twin.requests.inc({ method, route, code: String(status) });
        twin.duration.observe({ method, route }, seconds);
      }
      // Thrown, so that fast-check shrinks a difference to the fewest requests that show it.
      deepStrictEqual(await requestLines(ours.registry), await requestLines(twin.registry));
    }),
    { numRuns: 200 },
  );
  t.pass('200 random runs of requests scraped alike');
});

t.test('resetting the registry forgets the requests counted so far', async (t) => {
  const { registry, requests } = createApiMetrics();
  requests.record('GET', '/healthz', 200, 0.001);
  registry.resetMetrics();
  requests.record('GET', '/readyz', 503, 0.002);
  const text = await registry.metrics();
  t.notMatch(text, /healthz/);
  t.match(text, /gsp_api_requests_total\{method="GET",route="\/readyz",code="503"\} 1/);
  t.match(text, /gsp_api_request_duration_seconds_count\{method="GET",route="\/readyz"\} 1/);
});
