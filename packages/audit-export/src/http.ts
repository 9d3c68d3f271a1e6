import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import type { SendResult } from './sink.js';

/** The most of a response body read (for a reason or an OTLP response); the rest is discarded. */
const RESPONSE_MAX_BYTES = 64 * 1024;
/** A receiver's `Retry-After` is obeyed up to this; a larger value is taken as this. */
export const RETRY_AFTER_MAX_MS = 10 * 60_000;

export interface PostResponse {
  status: number;
  retryAfter: string | undefined;
  body: Buffer;
}

/** One keep-alive connection pool per sink; an extra CA is added to Node's roots, not put in their place. */
export function sinkAgent(url: URL, ca: string | undefined): http.Agent {
  if (url.protocol === 'https:')
    return new https.Agent({ keepAlive: true, maxSockets: 1, ...(ca ? { ca: [...rootCertificates, ca] } : {}) });
  return new http.Agent({ keepAlive: true, maxSockets: 1 });
}

/**
 * POSTs `body` and reads the response, all within `timeoutMs`. Resolves with the response, or
 * with the network failure as a string; rejects only when `signal` aborts.
 */
export function post(
  url: URL,
  agent: http.Agent,
  headers: http.OutgoingHttpHeaders,
  body: Buffer,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<PostResponse | string> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': body.length },
    });
    let settled = false;
    const finish = (result: PostResponse | string | { aborted: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (typeof result === 'object' && 'aborted' in result) reject(result.aborted);
      else resolve(result);
    };
    const onAbort = () => {
      finish({ aborted: signal?.reason });
      request.destroy();
    };
    const timer = setTimeout(() => {
      finish(`no response within ${timeoutMs} ms`);
      request.destroy();
    }, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (err: NodeJS.ErrnoException) => finish(`request failed: ${err.code ?? err.message}`));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        if (length >= RESPONSE_MAX_BYTES) return;
        chunks.push(chunk);
        length += chunk.length;
      });
      response.on('error', (err: NodeJS.ErrnoException) => finish(`response failed: ${err.code ?? err.message}`));
      response.on('end', () =>
        finish({
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'],
          body: Buffer.concat(chunks).subarray(0, RESPONSE_MAX_BYTES),
        }),
      );
    });
    request.end(body);
  });
}

/** `Retry-After` as milliseconds from `now`: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    // An HTTP date names its day and month; Date.parse alone would take "-1" for a year.
    const at = /^[A-Za-z]{3},/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, RETRY_AFTER_MAX_MS);
}

/** A response's status as an outcome, for any status the sink does not read further (see `SendResult`). */
export function statusOutcome(response: PostResponse): SendResult {
  const { status } = response;
  if (status >= 200 && status < 300) return { outcome: 'delivered' };
  const reason = `HTTP ${status}${describeBody(response.body)}`;
  if (status === 408 || status === 429 || status >= 500) {
    const wait = retryAfterMs(response.retryAfter);
    return wait === undefined ? { outcome: 'retry', reason } : { outcome: 'retry', reason, retryAfterMs: wait };
  }
  // A redirect is not followed: the URL is misconfigured, and following it would resend the
  // signature and the token to wherever the receiver points.
  return { outcome: 'poison', reason, status };
}

/** The start of a text response, for the log line that names why a batch failed. */
function describeBody(body: Buffer): string {
  const text = body.subarray(0, 200).toString('utf8').replace(/\s+/g, ' ').trim();
  return text === '' || text.includes('\uFFFD') ? '' : `: ${text}`;
}
