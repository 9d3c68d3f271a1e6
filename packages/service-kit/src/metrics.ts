import http from 'node:http';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';
import type { AddressInfo } from 'node:net';
import { clientErrorHandler } from './framework.js';
import { applyHttpTimeouts, httpTimeouts } from './http.js';
import type { HttpTimeouts } from './http.js';
import { writeProblem } from './problems.js';

/** What a Prometheus registry (prom-client's `Registry`) offers a scrape. */
export interface MetricsSource {
  metrics(): Promise<string>;
  readonly contentType: string;
}

export interface ServeMetricsOptions {
  /** The service's own `http` config; unset means the documented defaults of `httpTimeouts`. */
  http?: HttpTimeouts | undefined;
}

/**
 * `GET /metrics` on a port of its own, so the service's public ports never expose it and the
 * scrape passes no authentication, audit or rate limit. A slow client is cut off as on every
 * other port of the service (`options.http`).
 */
export async function serveMetrics(
  metrics: MetricsSource,
  port: number,
  host: string,
  options: ServeMetricsOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    // Scrapers may add a query string (Prometheus' `params`); only the path decides.
    if ((req.url ?? '').split('?')[0] !== '/metrics') return writeProblem(res, 404, 'only GET /metrics is served here');
    if (req.method !== 'GET') return writeProblem(res, 405, 'only GET /metrics is served here', { allow: 'GET' });
    metrics.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => writeProblem(res, 500, 'metrics could not be collected'),
    );
  });
  applyHttpTimeouts(server, options.http ?? httpTimeouts({}));
  // A timed-out or garbled request is answered problem+json too, not with Node's bare status line.
  server.on('clientError', clientErrorHandler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The latency buckets of `<prefix>_request_duration_seconds`, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface MetricSample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** One method and route template: its requests by status. */
interface CountSeries {
  method: string;
  route: string;
  byStatus: Map<number, number>;
}

/** The latency of one route template (and method, when the service labels by it). */
interface DurationSeries {
  labels: Record<string, string>;
  /** Requests per latency bucket, not cumulative; the last slot counts those above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/** Which labels `<prefix>_request_duration_seconds` carries: the route template, and the method too or not. */
export type DurationLabels = 'method-route' | 'route';

/**
 * Counts answered requests in plain maps, read at scrape time. prom-client's Counter and
 * Histogram build and look up a label string on every call: about 1.5 µs of each of the API
 * server's flag GETs (25 µs) under load, here a map lookup by route and method. What a scrape
 * reads is what they would write.
 */
export class RequestMetrics {
  private readonly counts = new Map<string, Map<string, CountSeries>>();
  private readonly durations = new Map<string, Map<string, DurationSeries>>();
  /** In the order first seen, as prom-client lists them. */
  private countSeries: CountSeries[] = [];
  private durationSeries: DurationSeries[] = [];

  constructor(private readonly durationBy: DurationLabels) {}

  /** One answered request: counted by method, route and status, and its latency observed. */
  record(method: string, route: string, status: number, seconds: number): void {
    this.count(method, route, status);
    this.observe(method, route, seconds);
  }

  count(method: string, route: string, status: number): void {
    let byMethod = this.counts.get(route);
    if (byMethod === undefined) this.counts.set(route, (byMethod = new Map()));
    let s = byMethod.get(method);
    if (s === undefined) {
      s = { method, route, byStatus: new Map() };
      byMethod.set(method, s);
      this.countSeries.push(s);
    }
    s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1);
  }

  /** `method` is ignored when the durations are labelled by route only. */
  observe(method: string, route: string, seconds: number): void {
    const key = this.durationBy === 'route' ? '' : method;
    let byMethod = this.durations.get(route);
    if (byMethod === undefined) this.durations.set(route, (byMethod = new Map()));
    let s = byMethod.get(key);
    if (s === undefined) {
      const labels: Record<string, string> = this.durationBy === 'route' ? { route } : { method, route };
      s = { labels, buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      byMethod.set(key, s);
      this.durationSeries.push(s);
    }
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  reset(): void {
    this.counts.clear();
    this.durations.clear();
    this.countSeries = [];
    this.durationSeries = [];
  }

  /** `<prefix>_requests_total`'s samples. */
  requestsTotal(): MetricSample[] {
    return this.countSeries.flatMap((s) =>
      [...s.byStatus].map(([status, n]) => ({
        labels: { method: s.method, route: s.route, code: String(status) },
        value: n,
      })),
    );
  }

  /** `<prefix>_request_duration_seconds`' samples: cumulative buckets, `+Inf`, sum and count per series. */
  durationSeconds(name: string): MetricSample[] {
    return this.durationSeries.flatMap((s) => {
      const { labels } = s;
      let cumulative = 0;
      const buckets = DURATION_BUCKETS.map((le, i) => {
        cumulative += s.buckets[i]!;
        return { metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative };
      });
      return [
        ...buckets,
        { metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: s.count },
        { metricName: `${name}_sum`, labels, value: s.sum },
        { metricName: `${name}_count`, labels, value: s.count },
      ];
    });
  }
}

/**
 * A metric whose samples come from elsewhere, in the shape prom-client's registry reads from its
 * own metrics (it calls `get()` when scraped and `reset()` from `resetMetrics()`).
 */
class ReadOnScrape {
  readonly aggregator = 'sum';

  constructor(
    public name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    private readonly samples: (name: string) => MetricSample[],
    readonly reset: () => void,
  ) {}

  async get() {
    const { name, help, type, aggregator } = this;
    return { name, help, type, aggregator, values: this.samples(name) };
  }
}

export interface HttpRequestMetricsOptions {
  /** `HELP` of `<prefix>_requests_total`. */
  requestsHelp: string;
  /** `HELP` of `<prefix>_request_duration_seconds`. */
  durationHelp: string;
  durationBy: DurationLabels;
}

/**
 * A service's metrics: a Prometheus registry of its own (so several services can share a process,
 * as tests do) with Node's default metrics, and every metric name behind the service's prefix
 * (`gsp_api`, `gsp_cp`, `gsp_proxy`, `gsp_agent`). Served by `serveMetrics` on METRICS_PORT.
 */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** `<prefix>_<suffix>`, registered on this registry. */
  counter<L extends string = never>(suffix: string, help: string, labelNames?: readonly L[]): Counter<L>;
  /** A gauge set when scraped, by `collect`. */
  gauge<L extends string = never>(
    suffix: string,
    help: string,
    collect: (this: Gauge<L>) => void,
    labelNames?: readonly L[],
  ): Gauge<L>;
  /**
   * `<prefix>_requests_total{method,route,code}` and `<prefix>_request_duration_seconds` (by route,
   * and method with `durationBy: 'method-route'`), counted in plain maps and read when scraped.
   */
  httpRequests(options: HttpRequestMetricsOptions): RequestMetrics;
}

export function createServiceMetrics(prefix: string): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    counter: (suffix, help, labelNames = []) =>
      new Counter({ name: `${prefix}_${suffix}`, help, labelNames, registers }),
    gauge: (suffix, help, collect, labelNames = []) =>
      new Gauge({ name: `${prefix}_${suffix}`, help, labelNames, registers, collect }),
    httpRequests(options) {
      const requests = new RequestMetrics(options.durationBy);
      const reset = (): void => requests.reset();
      // prom-client's types list only its own metric classes; its registry needs no more than this.
      const register = (metric: ReadOnScrape): void => registry.registerMetric(metric as unknown as Metric);
      register(
        new ReadOnScrape(
          `${prefix}_requests_total`,
          options.requestsHelp,
          'counter',
          () => requests.requestsTotal(),
          reset,
        ),
      );
      register(
        new ReadOnScrape(
          `${prefix}_request_duration_seconds`,
          options.durationHelp,
          'histogram',
          (name) => requests.durationSeconds(name),
          reset,
        ),
      );
      return requests;
    },
  };
}
