import { STATUS_CODES } from 'node:http';
import {
  BadRequest,
  ClusterUnavailable,
  Conflict,
  Forbidden,
  NotFound,
  TooManyRequests,
  Unprocessable,
  withRetryAfter,
} from '../errors.js';

/** What a client should wait before retrying when the cluster is unreachable or failing and says nothing itself. */
export const CLUSTER_RETRY_AFTER_SECONDS = 5;
/** Longest Kubernetes message passed on; a proxy in front of the API server may answer with a whole page. */
const MAX_MESSAGE = 1000;

/** The parts of a Kubernetes `Status` that are translated. */
interface KubeStatus {
  message?: string;
  reason?: string;
  details?: { causes?: { field?: string; message?: string }[]; retryAfterSeconds?: number };
}

function parseStatus(body: string): KubeStatus {
  try {
    const parsed: unknown = JSON.parse(body);
    const isStatus = parsed !== null && typeof parsed === 'object' && (parsed as { kind?: unknown }).kind === 'Status';
    if (isStatus) return parsed as KubeStatus;
  } catch {
    // Not JSON: a proxy or load balancer answered, not the API server.
  }
  return {};
}

/** The Status message, with the causes of an Invalid answer that the message does not already list. */
function messageOf(status: number, kube: KubeStatus): string {
  const given = typeof kube.message === 'string' && kube.message !== '';
  let message = given ? (kube.message as string) : `${status} ${STATUS_CODES[status] ?? ''}`.trim();
  const causes = (kube.details?.causes ?? [])
    .map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? '')))
    .filter((c) => c !== '' && !message.includes(c));
  if (causes.length > 0) message += ` (${causes.join('; ')})`;
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

function retryAfterOf(headers: Record<string, string | undefined>, kube: KubeStatus, fallback: number): number {
  const header = Number(headers['retry-after']);
  if (Number.isFinite(header) && header > 0) return header;
  const details = kube.details?.retryAfterSeconds;
  return typeof details === 'number' && details > 0 ? details : fallback;
}

/**
 * The error to answer with when the Kubernetes API answered `status` (not 2xx) with `body`: its
 * own verdict (404, 409, 422 with the causes) where the caller can act on it, 403 naming the
 * control plane's service account as the one lacking a permission, 429 and 503 (with Retry-After)
 * for whatever says the cluster cannot serve us now. The Kubernetes message goes to the client
 * except on the cluster's own failures (5xx), where it is kept on the error for the log.
 */
export function kubeStatusError(status: number, body: string, headers: Record<string, string | undefined> = {}): Error {
  const kube = parseStatus(body);
  const message = messageOf(status, kube);
  switch (status) {
    case 400:
      return new BadRequest(message);
    case 403:
      return new Forbidden(`the control plane's service account lacks a Kubernetes permission: ${message}`);
    case 404:
      return new NotFound(message);
    case 409:
      return new Conflict(message);
    case 422:
      return new Unprocessable(message);
    case 429:
      return withRetryAfter(
        new TooManyRequests(`the Kubernetes API is throttling the control plane: ${message}`),
        retryAfterOf(headers, kube, 1),
      );
    case 401:
      return withRetryAfter(
        new ClusterUnavailable(`the Kubernetes API refused the control plane's credentials: ${message}`),
        CLUSTER_RETRY_AFTER_SECONDS,
      );
    default: {
      // The API server's own failures may describe its internals (webhooks, storage): logged, not shown.
      const what = `${status} ${STATUS_CODES[status] ?? ''}`.trim();
      const error = Object.assign(new ClusterUnavailable(`the Kubernetes API could not serve the request (${what})`), {
        kubeMessage: message,
      });
      return withRetryAfter(error, retryAfterOf(headers, kube, CLUSTER_RETRY_AFTER_SECONDS));
    }
  }
}

/**
 * The error for a Kubernetes call that got no answer: timed out after `timeoutMs`, or the
 * connection failed (refused, reset, name not resolved). Only the error code is kept: the
 * message would name the cluster's address.
 */
export function kubeTransportError(err: unknown, timedOutAfterMs: number | undefined): Error {
  if (timedOutAfterMs !== undefined) {
    const seconds = timedOutAfterMs / 1000;
    const message = `the Kubernetes API did not answer within ${seconds} s (KUBE_REQUEST_TIMEOUT)`;
    return withRetryAfter(new ClusterUnavailable(message), CLUSTER_RETRY_AFTER_SECONDS);
  }
  const code = (err as { code?: unknown } | null)?.code;
  const why = typeof code === 'string' && /^[A-Z_]+$/.test(code) ? ` (${code})` : '';
  return withRetryAfter(
    new ClusterUnavailable(`the Kubernetes API could not be reached${why}`),
    CLUSTER_RETRY_AFTER_SECONDS,
  );
}
