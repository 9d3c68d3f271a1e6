import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startKubeLite } from '@gsp/kube-lite';
import { serveMetrics } from '@gsp/service-kit';
import { BASIC_ADMIN, build, createKey, startKube } from './helper.js';

/** One series' value from a Prometheus text page, or 0 when the series is absent. */
function value(page: string, series: string): number {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

t.test(
  'the metrics port counts requests by route template and status, refusals by reason, and the keys known',
  async (t) => {
    const kube = await startKube(t);
    const { app } = await build(t, kube);
    const metrics = await serveMetrics(app.metrics.registry, 0, '127.0.0.1');
    t.teardown(() => metrics.close());
    const scrape = async (): Promise<string> => {
      const res = await fetch(metrics.url);
      t.equal(res.status, 200);
      return res.text();
    };

    const key = await createKey(app, 'metrics-viewer', 'viewer');
    const viewer = { 'x-api-key': key };
    for (let i = 0; i < 3; i++)
      t.equal((await app.inject({ url: '/api/v1/session', headers: viewer })).statusCode, 200);
    t.equal((await app.inject({ url: '/api/v1/session' })).statusCode, 401, 'no credential');
    t.equal(
      (await app.inject({ url: '/api/v1/session', headers: { 'x-api-key': 'gsp_not-a-real-key' } })).statusCode,
      401,
      'a wrong key',
    );
    t.equal(
      (await app.inject({ url: '/api/v1/session', headers: { authorization: 'Basic cm9vdDp3cm9uZw==' } })).statusCode,
      401,
      'a wrong password',
    );
    t.equal(
      (await app.inject({ method: 'DELETE', url: '/api/v1/apikeys/metrics-viewer', headers: viewer })).statusCode,
      403,
      'a viewer may not revoke',
    );
    t.equal((await app.inject({ url: '/api/v1/no-such-thing', headers: BASIC_ADMIN })).statusCode, 404);
    t.equal((await app.inject({ url: '/healthz' })).statusCode, 200);

    const page = await scrape();
    t.equal(value(page, 'gsp_cp_requests_total{method="GET",route="/api/v1/session",code="200"}'), 3);
    t.equal(value(page, 'gsp_cp_requests_total{method="GET",route="/api/v1/session",code="401"}'), 3);
    t.equal(
      value(page, 'gsp_cp_requests_total{method="DELETE",route="/api/v1/apikeys/:name",code="403"}'),
      1,
      'the route template, not the key name',
    );
    t.equal(value(page, 'gsp_cp_requests_total{method="POST",route="/api/v1/apikeys",code="201"}'), 1);
    t.equal(
      value(page, 'gsp_cp_requests_total{method="GET",route="unmatched",code="404"}'),
      1,
      'unknown paths share one series',
    );
    t.notMatch(page, /route="\/healthz"/, 'health probes are not counted');
    t.notMatch(page, /no-such-thing/, 'no raw path becomes a label');
    t.equal(value(page, 'gsp_cp_auth_failures_total{reason="missing"}'), 1);
    t.equal(value(page, 'gsp_cp_auth_failures_total{reason="apikey"}'), 1);
    t.equal(value(page, 'gsp_cp_auth_failures_total{reason="basic"}'), 1);
    t.equal(value(page, 'gsp_cp_request_duration_seconds_count{route="/api/v1/session"}'), 6);
    t.equal(value(page, 'gsp_cp_api_keys'), 1);
    t.equal(value(page, 'gsp_cp_api_keys_synced'), 1);
    t.notMatch(page, new RegExp(key.slice(-12)), 'no key value on the page');
    t.match(page, /process_cpu_seconds_total/, 'process metrics too');

    t.equal(
      (await app.inject({ method: 'DELETE', url: '/api/v1/apikeys/metrics-viewer', headers: BASIC_ADMIN })).statusCode,
      204,
    );
    t.equal(value(await scrape(), 'gsp_cp_api_keys'), 0, 'a revoked key leaves the index');

    t.equal((await fetch(`${metrics.url}?name[]=gsp_cp_api_keys`)).status, 200, "a scraper's query string is fine");
    const other = await fetch(metrics.url.replace('/metrics', '/api/v1/session'));
    t.equal(other.status, 404, 'the metrics port serves nothing else');
  },
);

t.test(
  'a replica whose key list is refused by the cluster is not ready and says so, ' +
    'rather than refuse every key while ready',
  async (t) => {
    const kube = await startKubeLite({ port: 0, token: 'the-right-token' });
    t.teardown(() => kube.close());
    const dir = mkdtempSync(join(tmpdir(), 'cp-refused-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, readFileSync(kube.kubeconfigPath, 'utf8').replace('the-right-token', 'a-revoked-token'));
    const { app } = await build(t, kube, { KUBECONFIG: kubeconfig });
    const metrics = await serveMetrics(app.metrics.registry, 0, '127.0.0.1');
    t.teardown(() => metrics.close());
    t.equal((await app.inject({ url: '/readyz' })).statusCode, 503, 'not ready: the API key index was never loaded');
    t.equal(value(await (await fetch(metrics.url)).text(), 'gsp_cp_api_keys_synced'), 0);
  },
);
