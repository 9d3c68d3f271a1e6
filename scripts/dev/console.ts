/**
 * What `npm start` prints of its services' output: each line prefixed with the service's name,
 * any audit line marked `[audit]` (the control plane's go to a file of the data directory, see
 * runner.ts), request logs only at LOG_LEVEL=debug (so the banner and its
 * `export TOKEN=` line stay on screen), a repeated warning once a minute, and while stopping only
 * warnings and worse.
 */

/** pino's levels. */
const LEVELS: Readonly<Record<string, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};
/** Fastify logs each request twice at info; in development they are debug. */
const REQUEST_MESSAGES = new Set(['incoming request', 'request completed']);

export interface DevConsoleOptions {
  /** npm start's LOG_LEVEL (the services get the same); request logs show at `debug` and below. */
  logLevel?: string | undefined;
  /**
   * A warning a service repeats within this long is shown once (the agent redials every few seconds while access is
   * off).
   */
  repeatWindowMs?: number;
  now?: () => number;
}

interface LogEntry {
  level?: unknown;
  msg?: unknown;
  reqId?: unknown;
}

export class DevConsole {
  private stopping = false;
  private readonly threshold: number;
  private readonly warned = new Map<string, number>();

  constructor(private readonly options: DevConsoleOptions = {}) {
    this.threshold = LEVELS[options.logLevel ?? 'info'] ?? LEVELS.info!;
  }

  /** From now on only warnings and worse: the services' own shutdown lines are routine. */
  stop(): void {
    this.stopping = true;
  }

  /** The line to print for one line of `service`'s output, or undefined to leave it out. */
  format(service: string, line: string): string | undefined {
    if (line.trim() === '') return undefined;
    const entry = parseEntry(line);
    // Plain text (kube-lite's, a configuration error, a crash) is always shown.
    if (entry === undefined) return `[${service}] ${line}`;
    if (entry.level === 'audit') return this.stopping ? undefined : `[audit] [${service}] ${line}`;
    const level = typeof entry.level === 'number' ? entry.level : LEVELS.info!;
    const shownAt = typeof entry.reqId === 'string' && REQUEST_MESSAGES.has(String(entry.msg)) ? LEVELS.debug! : level;
    if (shownAt < this.threshold || (this.stopping && level < LEVELS.warn!)) return undefined;
    if (level === LEVELS.warn && this.repeated(`${service}\0${String(entry.msg)}`)) return undefined;
    return `[${service}] ${line}`;
  }

  private repeated(key: string): boolean {
    const now = (this.options.now ?? Date.now)();
    const last = this.warned.get(key);
    if (last !== undefined && now - last < (this.options.repeatWindowMs ?? 60_000)) return true;
    this.warned.set(key, now);
    return false;
  }
}

function parseEntry(line: string): LogEntry | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(line);
    return parsed !== null && typeof parsed === 'object' ? (parsed as LogEntry) : undefined;
  } catch {
    return undefined;
  }
}
