/** One audit record as it leaves the process (becomes one CloudEvent / one OTLP LogRecord). */
export interface ExportRecord {
  /** Unique and stable across retries and restarts: receivers deduplicate by source + id. */
  id: string;
  /** The record kind, e.g. `io.gsp.control-plane.request`, `io.gsp.api-server.featureflags.set`. */
  type: string;
  /** RFC 3339 time of the record. */
  time: string;
  /** The record itself (a JSON object; it never holds credentials: the caller guarantees it). */
  readonly data: Record<string, unknown>;
  /**
   * The same record as JSON text, when the caller has it (a spool keeps records as text): the
   * webhook sends it as it is rather than serialising `data` again.
   */
  readonly json?: string | undefined;
}

/**
 * What one attempt came to. `retry`: a network error, a timeout, 408, 429 or 5xx (the batch is sent
 * again). `poison`: any other 4xx, a 3xx, or records the receiver rejected; sending it again would
 * fail the same way, so the caller keeps it for inspection instead.
 */
export type SendResult =
  | { outcome: 'delivered' }
  | { outcome: 'retry'; reason: string; retryAfterMs?: number }
  | { outcome: 'poison'; reason: string; status: number };

export interface Sink {
  /** `webhook` or `otlp`: the metric label, and the name a cursor or spool reader is kept under. */
  readonly name: string;
  /**
   * One HTTP request for the batch, bounded by the sink's timeout and by `signal`. Never throws for HTTP/network
   * failures (returns `retry`).
   */
  send(records: readonly ExportRecord[], signal?: AbortSignal): Promise<SendResult>;
}
