import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeStatusError, kubeTransportError } from './errors.js';

/** The container whose log is read. */
export interface LogTarget {
  namespace: string;
  pod: string;
  container: string;
}

/** The `pods/log` parameters the control plane passes on (Kubernetes' PodLogOptions). */
export interface LogOptions {
  follow: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  timestamps?: boolean;
}

/** Longest refusal read: a Status is small, a proxy's error page is cut. */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * Container logs through `pods/log`, on Node's http as the informers' watch is. client-node's
 * `Log` does not fit: it hands back its AbortController only once the answer has come (a stalled
 * API server could not be given up on), drops the Status of a refusal (its message is lost), and
 * pipes without passing on a cut connection (the reader would wait forever).
 */
export class LogStreamer {
  private open = 0;

  constructor(
    private readonly kc: KubeConfig,
    private readonly timeoutMs: number,
  ) {}

  /** Connections to the cluster open now; a follow holds one until it ends or its reader goes. */
  get active(): number {
    return this.open;
  }

  /**
   * The container's log as Kubernetes sends it, once it answered 200 within the request timeout;
   * else the error to answer with (kube/errors.ts): its refusal translated, or 503 when it was
   * unreachable or silent. Destroying the stream closes the connection, ending a follow.
   */
  async stream(target: LogTarget, options: LogOptions): Promise<IncomingMessage> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    const { namespace, pod, container } = target;
    const url = new URL(
      `${cluster.server}/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`,
    );
    url.searchParams.set('container', container);
    if (options.follow) url.searchParams.set('follow', 'true');
    if (options.tailLines !== undefined) url.searchParams.set('tailLines', String(options.tailLines));
    if (options.sinceSeconds !== undefined) url.searchParams.set('sinceSeconds', String(options.sinceSeconds));
    if (options.timestamps === true) url.searchParams.set('timestamps', 'true');
    const requestOptions: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(requestOptions);

    return new Promise<IncomingMessage>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(url, { ...requestOptions, method: 'GET' });
      this.open++;
      request.once('close', () => this.open--);
      let settled = false;
      const fail = (err: Error): void => {
        clearTimeout(timer);
        request.destroy();
        if (!settled) reject(err);
        settled = true;
      };
      // Until the answer (and a refusal's body) has come; a 200 then streams for as long as it lasts.
      const timer = setTimeout(() => fail(kubeTransportError(undefined, this.timeoutMs)), this.timeoutMs);
      // After the 200, a failure reaches the reader as the response's own error or close.
      request.on('error', (err) => fail(kubeTransportError(err, undefined)));
      request.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status === 200) {
          clearTimeout(timer);
          settled = true;
          return resolve(res);
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (body.length < MAX_ERROR_BODY) body += chunk;
        });
        res.on('error', () => undefined);
        res.on('close', () =>
          fail(
            kubeStatusError(status, body.slice(0, MAX_ERROR_BODY), res.headers as Record<string, string | undefined>),
          ),
        );
      });
      request.end();
    });
  }
}
