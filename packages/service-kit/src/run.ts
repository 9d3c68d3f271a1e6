import { ConfigError } from './config.js';
import type { HttpTimeouts } from './http.js';
import type { Logger } from './logger.js';
import { serveMetrics } from './metrics.js';
import type { MetricsSource } from './metrics.js';

export interface RunningService {
  close(): Promise<void>;
  /**
   * The graceful stop SIGTERM asks for, when the service has one (Kubernetes sends SIGTERM before
   * it removes a pod): finish what is in flight, then close. SIGINT calls `close` instead.
   */
  drain?(): Promise<void>;
  /** How long `drain` may take before the process exits with 1 (default: 10 s, as `close`). */
  drainDeadlineMs?: number;
  log?: Logger;
}

export interface RunServiceOptions<C> {
  /**
   * The ports the service listens on, by the variable each came from (`{ PORT: config.port }`):
   * a port that cannot be bound at start is reported as that variable's configuration error.
   */
  ports?: (config: C) => Readonly<Record<string, number>>;
}

/** How long a shutdown may take before the process gives up on it and exits with 1. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * The life of a service process: load the configuration and start (a ConfigError, or a port of
 * `options.ports` that is busy or not permitted, is printed as `<name>: invalid configuration:
 * <message>`, without a stack, and exits with 1), and on SIGINT or SIGTERM close and exit with 0
 * (1 when closing fails or outlasts 10 s). A service with `drain` drains on SIGTERM instead (exit 1
 * when it fails or outlasts `drainDeadlineMs`); a second SIGTERM or SIGINT during the drain exits
 * with 1 at once, as Kubernetes components do: whoever sends it has stopped waiting. A signal
 * during a close is ignored: the close is the fast stop already.
 */
export async function runService<C>(
  name: string,
  load: () => C,
  start: (config: C) => Promise<RunningService>,
  options: RunServiceOptions<C> = {},
): Promise<void> {
  let service: RunningService;
  try {
    const config = load();
    const ports = options.ports?.(config) ?? {};
    checkDistinctPorts(ports);
    service = await start(config).catch((err: unknown) => {
      throw bindError(err, ports) ?? err;
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${name}: invalid configuration: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  let stopping: 'drain' | 'close' | undefined;
  const stop = (signal: NodeJS.Signals) => {
    // A terminal's Ctrl-C reaches the whole process group, and `npm start` then sends SIGTERM to each
    // service: a close already under way (the fast stop) goes on.
    if (stopping === 'close') return;
    if (stopping === 'drain') {
      const message = `${signal} during the drain: exiting at once, cutting what is still in flight`;
      if (service.log) service.log.warn({ signal }, message);
      else console.error(`${name}: ${message}`);
      process.exit(1);
    }
    const drain = signal === 'SIGTERM' ? service.drain?.bind(service) : undefined;
    stopping = drain ? 'drain' : 'close';
    service.log?.info({ signal }, drain ? 'draining' : 'shutting down');
    const deadline = drain ? (service.drainDeadlineMs ?? SHUTDOWN_DEADLINE_MS) : SHUTDOWN_DEADLINE_MS;
    setTimeout(() => process.exit(1), deadline).unref();
    (drain ? drain() : service.close()).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, stop);
}

/** What `runHttpService` needs of a service's configuration. */
export interface HttpServiceConfig {
  port: number;
  host: string;
  /** Plain HTTP, `GET /metrics` only. */
  metricsPort: number;
  http: HttpTimeouts;
}

/** What `runHttpService` needs of a built service: a Fastify instance with its metrics registry. */
export interface HttpService {
  listen(options: { port: number; host: string }): Promise<unknown>;
  close(): Promise<unknown>;
  log: Logger;
  metrics: { registry: MetricsSource };
}

/**
 * The whole entry point of an HTTP service (the API server, the control plane): `runService`
 * around an app listening on PORT and its metrics served on METRICS_PORT, both closed together.
 */
export async function runHttpService<C extends HttpServiceConfig>(
  name: string,
  load: () => C,
  build: (config: C) => Promise<HttpService>,
): Promise<void> {
  await runService(
    name,
    load,
    async (config) => {
      const app = await build(config);
      await app.listen({ port: config.port, host: config.host });
      const metrics = await serveMetrics(app.metrics.registry, config.metricsPort, config.host, { http: config.http });
      app.log.info({ url: metrics.url }, 'metrics served');
      return {
        close: async () => {
          await Promise.all([app.close(), metrics.close()]);
        },
        log: app.log,
      };
    },
    { ports: (config) => ({ PORT: config.port, METRICS_PORT: config.metricsPort }) },
  );
}

/** Two variables naming one port would fail at the second listen: say so before starting. */
function checkDistinctPorts(ports: Readonly<Record<string, number>>): void {
  const seen = new Map<number, string>();
  for (const [variable, port] of Object.entries(ports)) {
    const other = seen.get(port);
    // Port 0 asks the system for a free port each time, so it may repeat.
    if (other !== undefined && port !== 0)
      throw new ConfigError(variable, `must differ from ${other} (both are ${port})`);
    seen.set(port, variable);
  }
}

/** A listen that failed on a port of `ports` as the ConfigError of its variable; undefined for anything else. */
function bindError(err: unknown, ports: Readonly<Record<string, number>>): ConfigError | undefined {
  const e = err as Partial<NodeJS.ErrnoException> & { address?: unknown; port?: unknown };
  if (e?.syscall !== 'listen' || typeof e.port !== 'number') return undefined;
  const variable = Object.entries(ports).find(([, port]) => port === e.port)?.[0];
  if (variable === undefined) return undefined;
  const host = typeof e.address === 'string' ? e.address : '';
  const where = `${host.includes(':') ? `[${host}]` : host}:${e.port}`;
  if (e.code === 'EADDRINUSE') return new ConfigError(variable, `${where} is already in use`);
  if (e.code === 'EACCES')
    return new ConfigError(variable, `${where} may not be bound by this user (below 1024 needs privileges)`);
  return undefined;
}
