import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import {
  CoreV1Api,
  CustomObjectsApi,
  IsomorphicFetchHttpLibrary,
  ResponseContext,
  ServerConfiguration,
  Watch,
  createConfiguration,
  wrapHttpLibrary,
} from '@kubernetes/client-node';
import type { KubeConfig, RequestContext } from '@kubernetes/client-node';
import { kubeStatusError, kubeTransportError } from './errors.js';

export interface KubeBounds {
  /** `KUBE_REQUEST_TIMEOUT`: the whole exchange of one call, answer body included; a watch's headers. */
  requestTimeoutMs: number;
  /** `KUBE_WATCH_TIMEOUT`: how long one watch lasts before the server ends it and it is renewed. */
  watchTimeoutMs: number;
}

/** What the rest of the service sees of the cluster: typed clients whose every call is bounded and translated. */
export interface KubeClients {
  core: CoreV1Api;
  custom: CustomObjectsApi;
  /** For informers: each watch ends (and is renewed) within its bound, even on a silent connection. */
  watch: Watch;
}

/**
 * client-node's fetch with a deadline over the whole exchange (headers and body), and every
 * failure turned into the error the control plane answers with (kube/errors.ts), so no caller
 * can forget either. Bodies are read here, under the deadline, before the generated code parses them.
 */
class BoundedFetch {
  private readonly fetch = new IsomorphicFetchHttpLibrary();
  constructor(private readonly timeoutMs: number) {}

  async send(request: RequestContext): Promise<ResponseContext> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const own = request.getSignal();
    request.setSignal(own ? AbortSignal.any([own, deadline.signal]) : deadline.signal);
    let answer: { status: number; headers: Record<string, string>; body: Buffer };
    try {
      const response = await this.fetch.send(request).toPromise();
      answer = { status: response.httpStatusCode, headers: response.headers, body: await response.body.binary() };
    } catch (err) {
      throw kubeTransportError(err, deadline.signal.aborted ? this.timeoutMs : undefined);
    } finally {
      clearTimeout(timer);
    }
    const { status, headers, body } = answer;
    if (status < 200 || status > 299) throw kubeStatusError(status, body.toString('utf8'), headers);
    return new ResponseContext(status, headers, { text: async () => body.toString('utf8'), binary: async () => body });
  }
}

/**
 * A watch with two bounds client-node's lacks: its response headers within the request timeout,
 * and its whole life within `timeoutSeconds` (which the server honours by ending it) plus that
 * timeout. A connection that went silent (a stalled network swallows the server's end too) is
 * so given up and the informer resumes from its last resourceVersion, catching up on what it missed.
 */
class BoundedWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly bounds: KubeBounds,
  ) {
    super(config);
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    const url = new URL(cluster.server + path);
    for (const [name, value] of Object.entries(queryParams))
      if (value !== undefined) url.searchParams.set(name, String(value));
    url.searchParams.set('watch', 'true');
    url.searchParams.set('timeoutSeconds', String(Math.max(1, Math.round(this.bounds.watchTimeoutMs / 1000))));
    const options: https.RequestOptions = {};
    await this.config.applyToHTTPSOptions(options);

    const controller = new AbortController();
    const request = (url.protocol === 'https:' ? https : http).request(url, { ...options, method: 'GET' });
    let ended = false;
    const timers: NodeJS.Timeout[] = [];
    const end = (err: unknown): void => {
      if (ended) return;
      ended = true;
      for (const timer of timers) clearTimeout(timer);
      request.destroy();
      done(err);
    };
    const limit = (ms: number, why: string) => setTimeout(() => end(new Error(why)), ms).unref();
    // Stopped by the informer: it wants no more callbacks.
    controller.signal.addEventListener('abort', () => {
      ended = true;
      for (const timer of timers) clearTimeout(timer);
      request.destroy();
    });
    const { requestTimeoutMs, watchTimeoutMs } = this.bounds;
    timers.push(limit(requestTimeoutMs, `the watch of ${path} got no answer within ${requestTimeoutMs / 1000} s`));
    timers.push(
      limit(
        watchTimeoutMs + requestTimeoutMs,
        `the watch of ${path} outlived its timeout: its connection is presumed dead`,
      ),
    );
    request.on('error', end);
    request.on('response', (res) => {
      clearTimeout(timers[0]);
      res.setEncoding('utf8');
      // A cut connection is reported by 'close' below (incomplete body), not as an unhandled error.
      res.on('error', () => undefined);
      if (res.statusCode !== 200) {
        // The informer relists on 410 (Expired); anything else is an error it reports and we restart.
        const status = res.statusCode ?? 0;
        let body = '';
        res.on('data', (chunk: string) => (body = (body + chunk).slice(0, 1000)));
        res.on('close', () => {
          end(
            Object.assign(new Error(`the watch of ${path} was refused (${status}): ${body}`), { statusCode: status }),
          );
        });
        return;
      }
      const lines = createInterface({ input: res, crlfDelay: Infinity });
      // readline passes the body's errors on; 'close' below reports them.
      lines.on('error', () => undefined);
      lines.on('line', (line) => {
        let event: { type?: string; object?: unknown };
        try {
          event = JSON.parse(line) as { type?: string; object?: unknown };
        } catch {
          return;
        }
        callback(event.type ?? '', event.object, event);
      });
      // Every line has been handed on by then; an incomplete body is a cut connection.
      res.on('close', () => end(res.complete ? null : new Error(`the watch of ${path} was cut`)));
    });
    request.end();
    return controller;
  }
}

/** The clients of the cluster `kc` points at, bounded by `bounds`. */
export function kubeClients(kc: KubeConfig, bounds: KubeBounds): KubeClients {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    httpApi: wrapHttpLibrary(new BoundedFetch(bounds.requestTimeoutMs)),
  });
  return {
    core: new CoreV1Api(configuration),
    custom: new CustomObjectsApi(configuration),
    watch: new BoundedWatch(kc, bounds),
  };
}
