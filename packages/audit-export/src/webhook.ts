import { createHmac, timingSafeEqual } from 'node:crypto';
import { post, sinkAgent, statusOutcome } from './http.js';
import type { ExportRecord, SendResult, Sink } from './sink.js';

/** The batched content mode of the CloudEvents HTTP binding: a JSON array of structured events. */
export const CLOUDEVENTS_BATCH_CONTENT_TYPE = 'application/cloudevents-batch+json';
/** The header a receiver checks: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'gsp-signature';

export interface WebhookSinkOptions {
  url: string;
  /** CloudEvents `source`: the service and replica, e.g. `/gsp/control-plane/<replica>`. */
  source: string;
  /**
   * HMAC-SHA256 secret: every request carries
   * `gsp-signature: t=<unix seconds>,v1=<hex of HMAC(secret, "<t>.<body>")>`.
   */
  secret?: string | undefined;
  /** Sent as `authorization: Bearer <token>`. */
  token?: string | undefined;
  timeoutMs: number;
  /** Extra CA (PEM) for https receivers. */
  ca?: string | undefined;
}

/**
 * The request body: one CloudEvents 1.0 structured event per record, in the batch's order. Built
 * as text, each record's `json` (or its `data` serialised) put in as the event's `data`: the same
 * JSON as serialising the events whole, without a copy of every record as objects first.
 */
export function cloudEventsBatch(records: readonly ExportRecord[], source: string): string {
  const head = `{"specversion":"1.0","id":`;
  const fixed = `,"source":${JSON.stringify(source)},"type":`;
  let body = '[';
  for (const record of records) {
    if (body.length > 1) body += ',';
    body +=
      `${head}${JSON.stringify(record.id)}${fixed}${JSON.stringify(record.type)}` +
      `,"time":${JSON.stringify(record.time)},"datacontenttype":"application/json",` +
      `"data":${record.json ?? JSON.stringify(record.data)}}`;
  }
  return `${body}]`;
}

function hmacHex(secret: string, t: string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/** The `gsp-signature` value for `body` at `now` (milliseconds). */
export function signatureHeader(body: string | Buffer, secret: string, now = Date.now()): string {
  const t = String(Math.floor(now / 1000));
  return `t=${t},v1=${hmacHex(secret, t, body)}`;
}

/**
 * Verifies a `gsp-signature` header for a receiver (constant-time; rejects timestamps further than
 * `toleranceMs` from `now`, either way). Several `v1=` entries may be present (a secret being
 * rotated); one matching is enough.
 */
export function verifySignature(
  header: string | undefined,
  body: string | Buffer,
  secret: string,
  toleranceMs: number,
  now = Date.now(),
): boolean {
  if (header === undefined) return false;
  let t: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return false;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined || !/^\d{1,12}$/.test(value)) return false;
      t = value;
    } else if (key === 'v1') signatures.push(value);
  }
  if (t === undefined || signatures.length === 0) return false;
  if (Math.abs(now - Number(t) * 1000) > toleranceMs) return false;
  const expected = Buffer.from(hmacHex(secret, t, body), 'utf8');
  let ok = false;
  for (const signature of signatures) {
    const given = Buffer.from(signature, 'utf8');
    // The length of a hex SHA-256 is public; only equal-length values are compared, in constant time.
    if (given.length === expected.length && timingSafeEqual(given, expected)) ok = true;
  }
  return ok;
}

/** POSTs each batch as CloudEvents, signed when a secret is configured. */
export function webhookSink(options: WebhookSinkOptions): Sink {
  const url = new URL(options.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError('webhook URL must use http: or https:');
  const agent = sinkAgent(url, options.ca);
  const fixed: Record<string, string> = { 'content-type': CLOUDEVENTS_BATCH_CONTENT_TYPE };
  if (options.token !== undefined) fixed.authorization = `Bearer ${options.token}`;
  return {
    name: 'webhook',
    async send(records, signal): Promise<SendResult> {
      const body = Buffer.from(cloudEventsBatch(records, options.source), 'utf8');
      const headers =
        options.secret === undefined ? fixed : { ...fixed, [SIGNATURE_HEADER]: signatureHeader(body, options.secret) };
      const response = await post(url, agent, headers, body, options.timeoutMs, signal);
      return typeof response === 'string' ? { outcome: 'retry', reason: response } : statusOutcome(response);
    },
  };
}
