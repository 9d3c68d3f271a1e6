import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import https from 'node:https';
import type { ClientRequest, OutgoingHttpHeaders } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { ClientHttp2Stream, Http2Session } from 'node:http2';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { TunnelService } from '@gsp/tunnel-proto';
import type { AgentFrameSchema, AgentMessageSchema, Open, ProxyFrame } from '@gsp/tunnel-proto';
import {
  BatchQueue,
  codeLabel,
  drainingWriter,
  frameDataBytes,
  fromHeaderBlock,
  HeaderBlockError,
  toHeaderBlock,
  useNodeTextEncoding,
  Valve,
  TUNNEL_PING_INTERVAL_MS,
  TUNNEL_WINDOW_BYTES,
} from '@gsp/tunnel-proto';
import type { KubeTarget } from './kube.js';

type AgentFrameInit = MessageInitShape<typeof AgentFrameSchema>;

/** One `AgentMessage` per batch of queued frames. */
async function* messages(out: BatchQueue<AgentFrameInit>): AsyncIterable<MessageInitShape<typeof AgentMessageSchema>> {
  for await (const frames of out) yield { frames };
}

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the agent reports as it works, for metrics; every hook is optional. */
export interface AgentEvents {
  /** The API server answered a request from the tunnel with `status` (101 for an upgrade). */
  response?(status: number): void;
  /** A request from the tunnel got no answer: the API server could not be reached, or refused the request. */
  failure?(): void;
  /** A tunnel connection (or an attempt) ended: `ok` when the proxy closed it, else the Connect code. */
  ended?(code: string): void;
  /** The proxy asked to pause a stream: its kubectl client reads slower than the API server answers. */
  pause?(): void;
}

export interface AgentOptions {
  proxyTunnelUrl: string;
  /** Extra CA certificates (PEM) trusted for an https: tunnel URL; the system's stay trusted. */
  proxyCa?: string | undefined;
  clusterId: string;
  agentToken: string;
  kube: KubeTarget;
  backoffInitialMs: number;
  backoffMaxMs: number;
  backoffResetMs: number;
  /** Ping the proxy this often; no answer within half of it ends the connection. Default 30 s. */
  pingIntervalMs?: number;
  /** Give up a dial (TCP and TLS) that has not completed within this long. Default 10 s. */
  connectTimeoutMs?: number;
  events?: AgentEvents;
  log: Logger;
}

/** Full jitter: a uniformly random wait up to the capped exponential step. */
export function backoffDelay(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30)));
}

interface Upstream {
  onData(chunk: Uint8Array): void;
  onEnd(): void;
  abort(): void;
  /** The proxy's client reads slower than the answer comes: stop reading it until `resume`. */
  pause(): void;
  resume(): void;
}

type Send = (frame: AgentFrameInit) => void;

/** Request headers undici refuses (it manages the connection itself); the proxy never sends them. */
const REFUSED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'host']);

const EMPTY = new Uint8Array(0);

const latin1 = (raw: readonly (Buffer | string)[]): string[] =>
  raw.map((b) => (typeof b === 'string' ? b : b.toString('latin1')));

/**
 * The API server's answer headers as a block, or undefined once `fail` has sent the stream an
 * error frame: a header the tunnel cannot carry as it is (a line break, say) is refused, not rewritten.
 */
function answerHeaders(raw: readonly string[], fail: (message: string) => void): string | undefined {
  try {
    return toHeaderBlock(raw);
  } catch (err) {
    if (!(err instanceof HeaderBlockError)) throw err;
    fail(`the Kubernetes API answered with headers the tunnel cannot carry: ${err.message}`);
    return undefined;
  }
}

/**
 * Writes to `target` (the request body, an upgraded socket); while it cannot take more, the
 * proxy pauses the stream's source, and resumes it once `target` has drained.
 */
function bodyWriter(streamId: number, send: Send): (target: NodeJS.WritableStream, chunk: Uint8Array) => void {
  return drainingWriter(
    () => send({ streamId, kind: { case: 'pause', value: {} } }),
    () => send({ streamId, kind: { case: 'resume', value: {} } }),
  );
}

/**
 * The answer to a request the API server did not answer in time, as kube-apiserver answers its own
 * timeouts: 504 with a `Status` kubectl prints ("Error from server (Timeout): ...").
 */
function timeoutAnswer(streamId: number, ms: number): AgentFrameInit {
  const message = `the cluster's Kubernetes API did not answer within ${ms} ms (KUBE_REQUEST_TIMEOUT of its tunnel agent)`;
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Timeout', code: 504 };
  const body = Buffer.from(JSON.stringify({ ...status, message }));
  // kubectl's discovery client drops error bodies but prints a Warning header (as the proxy's refusals do).
  const warning = `299 - ${JSON.stringify(message)}`;
  const headers = toHeaderBlock([
    'content-type',
    'application/json',
    'content-length',
    `${body.byteLength}`,
    'warning',
    warning,
  ]);
  return { streamId, kind: { case: 'response', value: { status: 504, headers, body, end: true } } };
}

/** Holds `valve` while the tunnel's outgoing queue is backed up. */
function holdWhileFull(out: BatchQueue<AgentFrameInit>, valve: Valve): void {
  if (!out.full) return;
  valve.hold('tunnel');
  out.whenDrained(() => valve.release('tunnel'));
}

/** Serves one request from the proxy against the Kubernetes API, answering with frames on `out`. */
function serve(
  streamId: number,
  open: Open,
  kube: KubeTarget,
  out: BatchQueue<AgentFrameInit>,
  events: AgentEvents,
  forget: () => void,
): Upstream {
  let done = false;
  const send: Send = (frame) => {
    if (!done) out.push(frame);
  };
  const finish = () => {
    done = true;
    forget();
  };
  const fail = (message: string) => {
    if (!done) events.failure?.();
    send({ streamId, kind: { case: 'error', value: message } });
    finish();
  };
  const flat = fromHeaderBlock(open.headers);
  if (flat.some((name, i) => i % 2 === 0 && name.toLowerCase() === 'upgrade'))
    return serveUpgrade(streamId, open, flat, kube, out, events, send, finish, fail);

  const headers: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    if (!REFUSED.has((flat[i] as string).toLowerCase())) headers.push(flat[i] as string, flat[i + 1] as string);
  headers.push(...kube.credentials);
  const path = kube.base.pathname.replace(/\/$/, '') + open.path;
  let abortUpstream: ((err?: Error) => void) | undefined;
  let aborted = false;
  let body: PassThrough | undefined;
  let dispatched = false;
  /** The response frame while it waits in the queue, so the body and the end can join it. */
  let head: { value: { body: Uint8Array; end: boolean }; batch: number } | undefined;
  // undici pauses the answer when onData returns false and goes on when called back.
  let resumeAnswer: (() => void) | undefined;
  const answer = new Valve(
    () => undefined,
    () => resumeAnswer?.(),
  );
  const writeBody = bodyWriter(streamId, send);
  const dispatch = (requestBody: PassThrough | null) => {
    dispatched = true;
    try {
      kube.pool.dispatch(
        { path, method: open.method, headers, body: requestBody },
        {
          onConnect(abort) {
            abortUpstream = abort;
            if (aborted) abort();
          },
          onHeaders(status, raw, resume) {
            resumeAnswer = resume;
            if (status < 200) return true; // 1xx: the final answer follows
            const headers = answerHeaders(latin1(raw), fail);
            if (headers === undefined) {
              abortUpstream?.();
              return false;
            }
            events.response?.(status);
            const value = { status, headers, body: EMPTY, end: false };
            send({ streamId, kind: { case: 'response', value } });
            head = { value, batch: out.taken };
            return true;
          },
          onData(chunk) {
            // Still queued: the first chunk rides in the response frame (and so may the end).
            if (head !== undefined && head.batch === out.taken && head.value.body.byteLength === 0)
              head.value.body = chunk;
            else {
              head = undefined;
              send({ streamId, kind: { case: 'data', value: chunk } });
            }
            holdWhileFull(out, answer);
            return !answer.closed;
          },
          onComplete() {
            if (head !== undefined && head.batch === out.taken) head.value.end = true;
            else send({ streamId, kind: { case: 'end', value: {} } });
            finish();
          },
          onError(err) {
            if ((err as { code?: unknown }).code !== 'UND_ERR_HEADERS_TIMEOUT' || done) {
              fail(`the Kubernetes API could not be reached: ${err.message}`);
              return;
            }
            events.failure?.();
            send(timeoutAnswer(streamId, kube.requestTimeoutMs));
            finish();
          },
        },
      );
    } catch (err) {
      fail(`the request could not be sent to the Kubernetes API: ${(err as Error).message}`);
    }
  };
  // Without a body (`open.end`, most requests) the request goes out at once; otherwise at the
  // first chunk (then streamed) or at `end`.
  if (open.end) dispatch(null);
  return {
    onData(chunk) {
      if (!dispatched) dispatch((body = new PassThrough()));
      if (body) writeBody(body, chunk);
    },
    onEnd() {
      if (!dispatched) dispatch(null);
      else body?.end();
    },
    abort() {
      aborted = true;
      finish();
      body?.destroy();
      abortUpstream?.();
    },
    pause: () => answer.hold('proxy'),
    resume: () => answer.release('proxy'),
  };
}

/** An upgrade (exec, attach, port-forward): node:http, then raw bytes both ways after the 101. */
function serveUpgrade(
  streamId: number,
  open: Open,
  flat: string[],
  kube: KubeTarget,
  out: BatchQueue<AgentFrameInit>,
  events: AgentEvents,
  send: Send,
  finish: () => void,
  fail: (message: string) => void,
): Upstream {
  const headers: OutgoingHttpHeaders = {};
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i] as string;
    const value = flat[i + 1] as string;
    const existing = headers[name];
    headers[name] = existing === undefined ? value : ([] as string[]).concat(existing as string | string[], value);
  }
  Object.assign(headers, kube.options.headers);
  const request: ClientRequest = (kube.base.protocol === 'https:' ? https : http).request({
    ...kube.options,
    protocol: kube.base.protocol,
    hostname: kube.base.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: kube.base.port,
    path: kube.base.pathname.replace(/\/$/, '') + open.path,
    method: open.method,
    headers,
  });
  let socket: Duplex | undefined;
  /** What answers: the upgraded socket, or the response when the API server refused to upgrade. */
  let source: NodeJS.ReadableStream | undefined;
  const answer = new Valve(
    () => source?.pause(),
    () => source?.resume(),
  );
  const forward = (chunk: Buffer) => {
    send({ streamId, kind: { case: 'data', value: chunk } });
    holdWhileFull(out, answer);
  };
  const writeBody = bodyWriter(streamId, send);
  // undici bounds plain requests (headersTimeout); this bounds the wait for the 101 or a refusal.
  const deadline = setTimeout(() => {
    events.failure?.();
    send(timeoutAnswer(streamId, kube.requestTimeoutMs));
    finish();
    request.destroy();
  }, kube.requestTimeoutMs);
  const answered = () => clearTimeout(deadline);
  request.on('close', answered);
  request.on('response', (res) => {
    answered();
    source = res;
    const headers = answerHeaders(res.rawHeaders, fail);
    if (headers === undefined) {
      request.destroy();
      return;
    }
    events.response?.(res.statusCode ?? 502);
    // The API server refused the upgrade: relay its answer as a plain response.
    send({ streamId, kind: { case: 'response', value: { status: res.statusCode ?? 502, headers } } });
    res.on('data', forward);
    res.on('end', () => {
      send({ streamId, kind: { case: 'end', value: {} } });
      finish();
    });
    res.on('error', (err) => fail(err.message));
  });
  request.on('upgrade', (res, upgraded, head) => {
    answered();
    const headers = answerHeaders(res.rawHeaders, fail);
    if (headers === undefined) {
      upgraded.destroy();
      return;
    }
    events.response?.(101);
    socket = source = upgraded;
    if (answer.closed) upgraded.pause();
    send({ streamId, kind: { case: 'response', value: { status: 101, headers } } });
    if (head.length > 0) send({ streamId, kind: { case: 'data', value: head } });
    upgraded.on('data', forward);
    upgraded.on('end', () => {
      send({ streamId, kind: { case: 'end', value: {} } });
      finish();
    });
    upgraded.on('error', (err) => fail(err.message));
    upgraded.on('close', () => {
      send({ streamId, kind: { case: 'end', value: {} } });
      finish();
    });
  });
  request.on('error', (err) => fail(`the Kubernetes API could not be reached: ${err.message}`));
  request.flushHeaders();
  return {
    onData(chunk) {
      writeBody(socket ?? request, chunk);
    },
    onEnd() {
      socket?.end();
    },
    abort() {
      answered();
      finish();
      socket?.destroy();
      request.destroy();
    },
    pause: () => answer.hold('proxy'),
    resume: () => answer.release('proxy'),
  };
}

/**
 * Destroys `socket` unless `ready` fires within `ms`: a proxy behind a firewall that drops SYNs
 * would otherwise hold the agent for the OS's SYN retries (about two minutes on Linux).
 */
function dialWithin<T extends net.Socket>(socket: T, ms: number, ready: 'connect' | 'secureConnect'): T {
  const timer = setTimeout(() => socket.destroy(new Error(`no connection to the proxy within ${ms} ms`)), ms);
  const clear = (): void => clearTimeout(timer);
  socket.once(ready, clear);
  socket.once('close', clear);
  return socket;
}

/**
 * Connect's session manager, with the connection's receive window widened to TUNNEL_WINDOW_BYTES
 * (no http2.connect option does that), and an `error` listener that stays on every session.
 * Connect's own listener comes off when it leaves a session, but a late stream response can
 * re-arm its PING timer afterwards, whose timeout destroys the session with an error; with no
 * listener left, that error would crash the agent. The same error already reaches the tunnel's
 * stream, which is where it is handled.
 */
class WideWindowSessionManager extends Http2SessionManager {
  private readonly seen = new WeakSet<Http2Session>();

  override async request(...args: Parameters<Http2SessionManager['request']>): Promise<ClientHttp2Stream> {
    const stream = await super.request(...args);
    const session = stream.session;
    if (session && !this.seen.has(session)) {
      this.seen.add(session);
      session.setLocalWindowSize(TUNNEL_WINDOW_BYTES);
      session.on('error', ignoreSessionError);
      // The same re-armed timer can ping a session destroyed meanwhile, and ping() then throws
      // ERR_HTTP2_INVALID_SESSION inside a timer: answer "not sent" instead.
      const ping = session.ping.bind(session);
      session.ping = ((...args: Parameters<Http2Session['ping']>) =>
        session.destroyed ? false : ping(...args)) as Http2Session['ping'];
    }
    return stream;
  }
}

function ignoreSessionError(): void {
  // Handled through the stream; see WideWindowSessionManager.
}

export interface TunnelAgent {
  readonly connected: boolean;
  /** Connection attempts so far (for tests and metrics). */
  readonly attempts: number;
  /** Why the last attempt or connection ended, e.g. the proxy's `unavailable` with the policy message. */
  readonly lastError: ConnectError | undefined;
  stop(): Promise<void>;
}

/** Dials the proxy and serves its requests, reconnecting forever with full-jitter backoff. */
export function startAgent(opts: AgentOptions): TunnelAgent {
  useNodeTextEncoding();
  const events = opts.events ?? {};
  const target = new URL(opts.proxyTunnelUrl);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  // Frames are small and latency-bound: disable Nagle on the tunnel's socket.
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const noDelay =
    target.protocol === 'http:'
      ? {
          createConnection: () =>
            dialWithin(
              net.connect({ host, port: Number(target.port || 80), noDelay: true }),
              connectTimeoutMs,
              'connect',
            ),
        }
      : {
          createConnection: () =>
            dialWithin(
              tls.connect({
                host,
                port: Number(target.port || 443),
                // SNI carries names only (RFC 6066); an IP is checked against the certificate's IP SANs.
                ...(net.isIP(host) ? {} : { servername: host }),
                ALPNProtocols: ['h2'],
                ...(opts.proxyCa ? { ca: [...tls.rootCertificates, opts.proxyCa] } : {}),
              }),
              connectTimeoutMs,
              'secureConnect',
            ).setNoDelay(true),
        };
  const sessionManager = new WideWindowSessionManager(
    opts.proxyTunnelUrl,
    {
      pingIntervalMs: opts.pingIntervalMs ?? TUNNEL_PING_INTERVAL_MS,
      pingTimeoutMs: (opts.pingIntervalMs ?? TUNNEL_PING_INTERVAL_MS) / 2,
    },
    { ...noDelay, settings: { initialWindowSize: TUNNEL_WINDOW_BYTES } },
  );
  const transport = createConnectTransport({
    httpVersion: '2',
    baseUrl: opts.proxyTunnelUrl,
    sessionManager,
    acceptCompression: [],
  });
  const client = createClient(TunnelService, transport);
  const stopping = new AbortController();
  let connected = false;
  let attempts = 0;
  let lastError: ConnectError | undefined;

  async function runOnce(): Promise<number | undefined> {
    const out = new BatchQueue<AgentFrameInit>({ sizeOf: frameDataBytes });
    const upstreams = new Map<number, Upstream>();
    let connectedAt: number | undefined;
    try {
      const incoming = client.connect(messages(out), {
        signal: stopping.signal,
        headers: { authorization: `Bearer ${opts.agentToken}`, 'x-gsp-cluster-id': opts.clusterId },
      });
      const handle = (frame: ProxyFrame): void => {
        const { streamId } = frame;
        switch (frame.kind.case) {
          case 'hello':
            connected = true;
            connectedAt = Date.now();
            opts.log.info({ clusterId: frame.kind.value.clusterId }, 'tunnel connected');
            break;
          case 'open':
            upstreams.set(
              streamId,
              serve(streamId, frame.kind.value, opts.kube, out, events, () => upstreams.delete(streamId)),
            );
            break;
          case 'data':
            upstreams.get(streamId)?.onData(frame.kind.value);
            break;
          case 'end':
            upstreams.get(streamId)?.onEnd();
            break;
          case 'cancel':
            upstreams.get(streamId)?.abort();
            upstreams.delete(streamId);
            break;
          case 'pause':
            events.pause?.();
            upstreams.get(streamId)?.pause();
            break;
          case 'resume':
            upstreams.get(streamId)?.resume();
            break;
          default:
            break;
        }
      };
      for await (const message of incoming) for (const frame of message.frames) handle(frame);
      return connectedAt;
    } finally {
      connected = false;
      out.end();
      for (const u of upstreams.values()) u.abort();
    }
  }

  const loop = (async () => {
    let attempt = 0;
    while (!stopping.signal.aborted) {
      attempts++;
      let wait: number;
      const before = Date.now();
      let connectedAt: number | undefined;
      try {
        connectedAt = await runOnce();
        opts.log.warn({}, 'tunnel closed by the proxy; reconnecting');
        events.ended?.('ok');
        wait = -1;
      } catch (err) {
        if (stopping.signal.aborted) break;
        const e = ConnectError.from(err);
        events.ended?.(codeLabel(Code[e.code]));
        lastError = e;
        if (e.code === Code.Unauthenticated || e.code === Code.PermissionDenied) {
          opts.log.error(
            { code: Code[e.code], reason: e.rawMessage },
            'the proxy rejected the agent token; check AGENT_TOKEN and CLUSTER_ID (retrying at the backoff ceiling)',
          );
          wait = opts.backoffMaxMs;
        } else {
          opts.log.warn({ code: Code[e.code], reason: e.rawMessage }, 'tunnel unavailable; reconnecting with backoff');
          wait = -1;
        }
      }
      if (Date.now() - (connectedAt ?? before) >= opts.backoffResetMs && connectedAt !== undefined) attempt = 0;
      if (wait < 0) wait = backoffDelay(attempt, opts.backoffInitialMs, opts.backoffMaxMs);
      attempt++;
      try {
        await sleep(wait, undefined, { signal: stopping.signal });
      } catch {
        break;
      }
    }
  })();

  return {
    get connected() {
      return connected;
    },
    get attempts() {
      return attempts;
    },
    get lastError() {
      return lastError;
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
