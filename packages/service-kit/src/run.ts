import { ConfigError } from './config.js';

export interface RunningService {
  close(): Promise<void>;
  log?: { info(obj: object, msg: string): void };
}

/** How long a shutdown may take before the process gives up on it and exits with 1. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * The life of a service process: load the configuration (a ConfigError is printed as
 * `<name>: invalid configuration: <message>`, without a stack, and exits with 1), start, and
 * on SIGINT or SIGTERM close and exit with 0 (1 when closing fails or outlasts 10 s).
 */
export async function runService<C>(name: string, load: () => C, start: (config: C) => Promise<RunningService>): Promise<void> {
  let config: C;
  try {
    config = load();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${name}: invalid configuration: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const service = await start(config);
  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (closing) return;
      closing = true;
      service.log?.info({ signal }, 'shutting down');
      setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
      service.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
