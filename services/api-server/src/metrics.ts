import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';

/**
 * What an operator watches on the API server, on a registry of its own (so several apps can share
 * a process); the flags client adds its `gsp_flags_*` to the same registry. Served on METRICS_PORT.
 */
export interface ApiMetrics {
  registry: Registry;
  /**
   * Requests by method, route template (never the raw path) and status
   * (`gsp_api_requests_total`), and their latency by method and route
   * (`gsp_api_request_duration_seconds`).
   */
  requests: RequestMetrics;
}

/** The latency buckets of `gsp_api_request_duration_seconds`, in seconds. */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One method and route template: its requests by status, and their latency. */
interface RouteSeries {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Requests per latency bucket, not cumulative; the last slot counts those above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * Counts every answered request in plain maps, read at scrape time. prom-client's Counter and
 * Histogram build and look up a label string on every call: about 1.5 µs of each flag GET's 25
 * under load, here a map lookup by route and method. What a scrape reads is what they would write.
 */
export class RequestMetrics {
  private readonly byRoute = new Map<string, Map<string, RouteSeries>>();
  /** In the order first seen, as prom-client lists them. */
  private series: RouteSeries[] = [];

  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.byRoute.set(route, byMethod);
    }
    let s = byMethod.get(method);
    if (s === undefined) {
      s = {
        method,
        route,
        byStatus: new Map(),
        buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byMethod.set(method, s);
      this.series.push(s);
    }
    s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1);
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  reset(): void {
    this.byRoute.clear();
    this.series = [];
  }

  /** `gsp_api_requests_total`'s samples. */
  requestsTotal(): MetricSample[] {
    return this.series.flatMap((s) =>
      [...s.byStatus].map(([status, n]) => ({
        labels: { method: s.method, route: s.route, code: String(status) },
        value: n,
      })),
    );
  }

  /** `gsp_api_request_duration_seconds`' samples: cumulative buckets, `+Inf`, sum and count per series. */
  durationSeconds(name: string): MetricSample[] {
    return this.series.flatMap((s) => {
      const labels = { method: s.method, route: s.route };
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

interface MetricSample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
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

export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new RequestMetrics();
  const reset = () => requests.reset();
  // prom-client's types list only its own metric classes; its registry needs no more than this.
  const register = (metric: ReadOnScrape) => registry.registerMetric(metric as unknown as Metric);
  // `gsp_api_` like the other services' `gsp_cp_`, `gsp_proxy_`, `gsp_agent_`; `code` like the control plane's.
  register(
    new ReadOnScrape(
      'gsp_api_requests_total',
      'HTTP requests by method, route template and status',
      'counter',
      () => requests.requestsTotal(),
      reset,
    ),
  );
  register(
    new ReadOnScrape(
      'gsp_api_request_duration_seconds',
      'HTTP request latency by route',
      'histogram',
      (name) => requests.durationSeconds(name),
      reset,
    ),
  );
  return { registry, requests };
}
