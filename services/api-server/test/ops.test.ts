import t from 'tap';
import { serveMetrics } from '@gsp/service-kit';
import { bearer, build, cuttableDatabaseUrl, PLATFORM_ADMIN, until } from './helper.js';

t.test('operations endpoints', async (t) => {
  const { app } = await build(t);

  t.test('healthz and readyz need no token', async (t) => {
    t.same((await app.inject('/healthz')).json(), { status: 'ok' });
    const ready = await app.inject('/readyz');
    t.equal(ready.statusCode, 200);
    t.same(ready.json(), { status: 'ready' });
  });

  t.test('metrics are Prometheus text on a port of their own and count requests by route', async (t) => {
    await app.inject({ url: '/api/v1/platform/feature-flags', headers: await bearer(PLATFORM_ADMIN) });
    t.not((await app.inject('/metrics')).statusCode, 200, 'not served on the API port');
    const served = await serveMetrics(app.metrics.registry, 0, '127.0.0.1');
    t.teardown(() => served.close());
    const res = await fetch(served.url);
    const body = await res.text();
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain/);
    t.match(body, /gsp_api_requests_total\{method="GET",route="\/api\/v1\/platform\/feature-flags",code="200"\} 1/);
    t.match(
      body,
      /gsp_api_request_duration_seconds_count\{method="GET",route="\/api\/v1\/platform\/feature-flags"\} 1/,
    );
    t.match(body, /gsp_flags_store_up 1/, "the flags client's metrics share the prefix");
    const names = [...body.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!);
    t.same(
      names.filter((n) => !n.startsWith('gsp_') && !/^(process|nodejs)_/.test(n)),
      [],
      'every metric of ours starts with gsp_',
    );
    t.match(body, /process_cpu_seconds_total/);
  });

  t.test('the OpenAPI document describes the flag routes from their schemas', async (t) => {
    const doc = (await app.inject('/openapi.json')).json();
    t.equal(doc.openapi, '3.1.0');
    const put = doc.paths['/api/v1/platform/feature-flags/{flag}'].put;
    t.same(put.requestBody.content['application/json'].schema.required, ['value']);
    t.ok(put.responses['200'], 'documents the 200 answer');
    t.ok(doc.paths['/api/v1/tenants/{org}/clusters'].post, 'documents cluster registration');
    t.notOk(doc.paths['/metrics'], 'hides operational routes');
  });

  t.test('readyz answers 503 while the database is unreachable, and 200 again after', async (t) => {
    let link: Awaited<ReturnType<typeof cuttableDatabaseUrl>> | undefined;
    const { app: cut } = await build(t, {}, async (url) => {
      link = await cuttableDatabaseUrl(t, url);
      return link.url;
    });
    link!.cut();
    const res = await cut.inject('/readyz');
    t.equal(res.statusCode, 503);
    t.match(res.headers['content-type'], /problem\+json/);
    t.match(res.json().detail, /database cannot be reached/);
    link!.restore();
    // A pooled connection the cut broke may still look idle when the next probe comes in the same
    // instant (its end not yet read): that probe is a 503 and drops it. The one after it is ready,
    // as an orchestrator's next probe would find.
    await until('readyz to answer 200 again', async () =>
      (await cut.inject('/readyz')).statusCode === 200 ? true : undefined,
    );
  });
});
