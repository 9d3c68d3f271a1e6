/**
 * An ingress controller in miniature, for the tests: it terminates TLS on loopback and routes each
 * request by its Host and path as the rendered `networking.k8s.io/v1` Ingress objects say, to the
 * address the test gives each Service port, adding the `X-Forwarded-*` headers ingress-nginx adds.
 * Rules are matched as the Ingress API defines: exact hosts, `Exact` paths, then the longest
 * `Prefix` (element-wise, by `/`-separated segments); `ImplementationSpecific` is taken as `Prefix`.
 */
import { createServer as createHttpsServer } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface IngressObject {
  metadata: { name: string; namespace?: string };
  spec: {
    ingressClassName?: string;
    tls?: { hosts?: string[]; secretName?: string }[];
    rules?: {
      host?: string;
      http?: {
        paths: {
          path?: string;
          pathType: 'Exact' | 'Prefix' | 'ImplementationSpecific';
          backend: { service?: { name: string; port: { number?: number; name?: string } } };
        }[];
      };
    }[];
  };
}

/** Where a Service port is served on loopback, by `<service>:<port number or name>`. */
export type Backends = ReadonlyMap<string, { host: string; port: number }>;

export interface IngressProxy {
  /** The loopback port TLS is served on (stands for 443 of every host). */
  port: number;
  /** Each request's host, path and the backend it went to (`none` when no rule matched: 404). */
  routed: { host: string; path: string; backend: string }[];
  close(): Promise<void>;
}

export interface Route {
  host: string | undefined;
  path: string;
  exact: boolean;
  backend: string;
}

function routesOf(ingresses: readonly IngressObject[]): Route[] {
  const routes: Route[] = [];
  for (const ingress of ingresses) {
    for (const rule of ingress.spec.rules ?? []) {
      for (const path of rule.http?.paths ?? []) {
        const service = path.backend.service;
        if (!service) continue;
        routes.push({
          host: rule.host,
          path: path.path ?? '/',
          exact: path.pathType === 'Exact',
          backend: `${service.name}:${service.port.number ?? service.port.name}`,
        });
      }
    }
  }
  return routes;
}

/** Whether `pathname` falls under `prefix` as the Ingress API's `Prefix` means it: whole segments. */
export function prefixMatches(prefix: string, pathname: string): boolean {
  const want = prefix.split('/').filter((s) => s !== '');
  const have = pathname.split('/').filter((s) => s !== '');
  return want.length <= have.length && want.every((segment, i) => have[i] === segment);
}

/** The route for a request: its host's rules first (else the host-less ones), Exact, then the longest Prefix. */
export function match(routes: readonly Route[], host: string, pathname: string): Route | undefined {
  const forHost = routes.filter((r) => r.host === host);
  const candidates = forHost.length > 0 ? forHost : routes.filter((r) => r.host === undefined);
  const exact = candidates.find((r) => r.exact && r.path === pathname);
  if (exact) return exact;
  return candidates
    .filter((r) => !r.exact && prefixMatches(r.path, pathname))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

export async function startIngressProxy(
  ingresses: readonly IngressObject[],
  backends: Backends,
  tls: { cert: string; key: string },
): Promise<IngressProxy> {
  const routes = routesOf(ingresses);
  const routed: IngressProxy['routed'] = [];
  const target = (req: IncomingMessage): { host: string; port: number } | undefined => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const pathname = new URL(req.url ?? '/', 'https://x').pathname;
    const route = match(routes, host, pathname);
    routed.push({ host, path: pathname, backend: route?.backend ?? 'none' });
    return route ? backends.get(route.backend) : undefined;
  };
  const forwarded = (req: IncomingMessage): Record<string, string> => ({
    'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': req.headers.host ?? '',
    'x-forwarded-port': '443',
  });
  const server = createHttpsServer(tls, (req: IncomingMessage, res: ServerResponse) => {
    const to = target(req);
    if (!to) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('default backend - 404\n');
      return;
    }
    const upstream = httpRequest(
      { ...to, method: req.method, path: req.url, headers: { ...req.headers, ...forwarded(req) } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('bad gateway\n');
    });
    req.pipe(upstream);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const to = target(req);
    if (!to) return socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
    const upstream = connect(to.port, to.host, () => {
      const headers = { ...req.headers, ...forwarded(req) };
      const lines = Object.entries(headers).flatMap(([k, v]) =>
        (Array.isArray(v) ? v : [v]).filter((x) => x !== undefined).map((x) => `${k}: ${x}`),
      );
      upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    routed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
