import http from 'node:http';
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
