import type pg from 'pg';

/** What a client is told while the database cannot answer; the request may be retried. */
export const DATABASE_UNAVAILABLE = 'the database is unavailable or too slow to answer; try again shortly';

/** `Retry-After` of those answers: about one connection attempt. */
export const RETRY_AFTER_SECONDS = 2;

/** Socket errors: the database cannot be reached at all. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs that mean "not now" rather than "not this request": a statement or lock wait cut by a
 * timeout, a server shutting down or starting, too many connections, a transaction ended for
 * idling, a serialization failure or deadlock (whose transaction was rolled back). Class 08 is
 * every connection exception.
 */
const TRANSIENT_SQLSTATES = new Set(['57014', '57P01', '57P02', '57P03', '53300', '55P03', '25P03', '40001', '40P01']);

/** What pg and pg-pool throw, without a code, when a connection times out, breaks or is gone. */
const CONNECTION_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/**
 * Whether `err` means the database is unreachable, stalled or shedding load, so the request may
 * succeed when retried: answered 503 with Retry-After, never 500. The one place that knows how pg
 * reports such failures.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || TRANSIENT_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (CONNECTION_MESSAGES.some((m) => err.message.startsWith(m))) return true;
  return err.cause !== undefined && err.cause !== err && isDatabaseUnavailable(err.cause);
}

/**
 * `SELECT 1` answered within `timeoutMs`, whatever the pool is doing: a free connection, a new one,
 * or a wait for one. A stalled database makes this false in `timeoutMs`, not after the pool's own
 * timeouts add up.
 */
export async function databaseAnswers(pool: pg.Pool, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const query = pool.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig).then(
    () => true,
    () => false,
  );
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, false);
  });
  try {
    return await Promise.race([query, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
