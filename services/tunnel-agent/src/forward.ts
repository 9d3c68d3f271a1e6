import http from 'node:http';
import https from 'node:https';
import type { ClientRequest, OutgoingHttpHeaders } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Duplex } from 'node:stream';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Dispatcher } from 'undici';
import type { AgentFrameSchema, Open } from '@gsp/tunnel-proto';
import { drainingWriter, fromHeaderBlock, HeaderBlockError, toHeaderBlock, Valve } from '@gsp/tunnel-proto';
import type { BatchQueue } from '@gsp/tunnel-proto';
import type { AgentEvents } from './events.js';
import type { KubeTarget } from './kube.js';

export type AgentFrameInit = MessageInitShape<typeof AgentFrameSchema>;

/** A request from the proxy as the tunnel sees it: what the proxy sends on, and asks of it. */
export interface Upstream {
  onData(chunk: Uint8Array): void;
  onEnd(): void;
  abort(): void;
  /** The proxy's client reads slower than the answer comes: stop reading it until `resume`. */
  pause(): void;
  resume(): void;
}

/** One request the proxy opened, to forward to the Kubernetes API and answer with frames on `out`. */
export interface ForwardContext {
  streamId: number;
  open: Open;
  kube: KubeTarget;
  out: BatchQueue<AgentFrameInit>;
  events: AgentEvents;
  /** Called once the stream is over, whichever way it ended. */
  forget(): void;
}

type Send = (frame: AgentFrameInit) => void;

/** The answering side of a stream: frames pass while it lives; `fail` ends it with an error frame. */
interface Reply {
  readonly done: boolean;
  send: Send;
  finish(): void;
  fail(message: string): void;
}

function reply(ctx: ForwardContext): Reply {
  let done = false;
  const r: Reply = {
    get done() {
      return done;
    },
    send(frame) {
      if (!done) ctx.out.push(frame);
    },
    finish() {
      done = true;
      ctx.forget();
    },
    fail(message) {
      if (!done) ctx.events.failure?.();
      r.send({ streamId: ctx.streamId, kind: { case: 'error', value: message } });
      r.finish();
    },
  };
  return r;
}

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
  const message =
    `the cluster's Kubernetes API did not answer within ${ms} ms ` + '(KUBE_REQUEST_TIMEOUT of its tunnel agent)';
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

/**
 * Forwards one request from the proxy to the Kubernetes API, answering with frames on `ctx.out`:
 * an upgrade goes by node:http, anything else by the undici pool.
 */
export function forward(ctx: ForwardContext): Upstream {
  const flat = fromHeaderBlock(ctx.open.headers);
  const upgrade = flat.some((name, i) => i % 2 === 0 && name.toLowerCase() === 'upgrade');
  return upgrade ? forwardUpgrade(ctx, flat, reply(ctx)) : forwardRequest(ctx, flat, reply(ctx));
}

/** The request's headers for undici: the proxy's, less those undici refuses, and the agent's credentials. */
function undiciHeaders(flat: readonly string[], kube: KubeTarget): string[] {
  const headers: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    if (!REFUSED.has((flat[i] as string).toLowerCase())) headers.push(flat[i] as string, flat[i + 1] as string);
  headers.push(...kube.credentials);
  return headers;
}

/**
 * The API server's answer to a plain request, relayed as frames (undici's dispatch handler, one per
 * request): while the response frame still waits in the queue, the first chunk and the end join it.
 */
class AnswerRelay implements Dispatcher.DispatchHandler {
  /** Holds the answer while the proxy's client or the tunnel is backed up. */
  readonly valve: Valve;
  private abortUpstream: ((err?: Error) => void) | undefined;
  private aborted = false;
  /** The response frame while it waits in the queue, so the body and the end can join it. */
  private head: { value: { body: Uint8Array; end: boolean }; batch: number } | undefined;
  // undici pauses the answer when onData returns false and goes on when called back.
  private resumeAnswer: (() => void) | undefined;

  constructor(
    private readonly ctx: ForwardContext,
    private readonly stream: Reply,
  ) {
    this.valve = new Valve(
      () => undefined,
      () => this.resumeAnswer?.(),
    );
  }

  /** Cuts the request to the API server: now, or as soon as it is connected. */
  abort(): void {
    this.aborted = true;
    this.abortUpstream?.();
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortUpstream = abort;
    if (this.aborted) abort();
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    this.resumeAnswer = resume;
    if (status < 200) return true; // 1xx: the final answer follows
    const headers = answerHeaders(latin1(raw), this.stream.fail);
    if (headers === undefined) {
      this.abortUpstream?.();
      return false;
    }
    this.ctx.events.response?.(status);
    const value = { status, headers, body: EMPTY, end: false };
    this.stream.send({ streamId: this.ctx.streamId, kind: { case: 'response', value } });
    this.head = { value, batch: this.ctx.out.taken };
    return true;
  }

  onData(chunk: Buffer): boolean {
    const { head, ctx } = this;
    // Still queued: the first chunk rides in the response frame (and so may the end).
    if (head !== undefined && head.batch === ctx.out.taken && head.value.body.byteLength === 0) head.value.body = chunk;
    else {
      this.head = undefined;
      this.stream.send({ streamId: ctx.streamId, kind: { case: 'data', value: chunk } });
    }
    holdWhileFull(ctx.out, this.valve);
    return !this.valve.closed;
  }

  onComplete(): void {
    const { head, ctx } = this;
    if (head !== undefined && head.batch === ctx.out.taken) head.value.end = true;
    else this.stream.send({ streamId: ctx.streamId, kind: { case: 'end', value: {} } });
    this.stream.finish();
  }

  onError(err: Error): void {
    const { stream, ctx } = this;
    if ((err as { code?: unknown }).code !== 'UND_ERR_HEADERS_TIMEOUT' || stream.done) {
      stream.fail(`the Kubernetes API could not be reached: ${err.message}`);
      return;
    }
    ctx.events.failure?.();
    stream.send(timeoutAnswer(ctx.streamId, ctx.kube.requestTimeoutMs));
    stream.finish();
  }
}

/** A plain request (undici): the body streams as it comes, the answer as the API server sends it. */
function forwardRequest(ctx: ForwardContext, flat: string[], stream: Reply): Upstream {
  const { streamId, open, kube } = ctx;
  const { send, finish, fail } = stream;
  const headers = undiciHeaders(flat, kube);
  const path = kube.base.pathname.replace(/\/$/, '') + open.path;
  const relay = new AnswerRelay(ctx, stream);
  let body: PassThrough | undefined;
  let dispatched = false;
  const writeBody = bodyWriter(streamId, send);
  const dispatch = (requestBody: PassThrough | null) => {
    dispatched = true;
    try {
      kube.pool.dispatch({ path, method: open.method, headers, body: requestBody }, relay);
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
      finish();
      body?.destroy();
      relay.abort();
    },
    pause: () => relay.valve.hold('proxy'),
    resume: () => relay.valve.release('proxy'),
  };
}

/** The upgrade request to the API server (node:http), with the proxy's headers and the agent's credentials. */
function upgradeRequest(kube: KubeTarget, open: Open, flat: readonly string[]): ClientRequest {
  // No prototype: a header named `constructor` or `__proto__` is a header like any other.
  const headers = Object.create(null) as OutgoingHttpHeaders;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i] as string;
    const value = flat[i + 1] as string;
    const existing = headers[name];
    headers[name] = existing === undefined ? value : ([] as string[]).concat(existing as string | string[], value);
  }
  Object.assign(headers, kube.options.headers);
  return (kube.base.protocol === 'https:' ? https : http).request({
    ...kube.options,
    protocol: kube.base.protocol,
    hostname: kube.base.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: kube.base.port,
    path: kube.base.pathname.replace(/\/$/, '') + open.path,
    method: open.method,
    headers,
  });
}

/** undici bounds plain requests (headersTimeout); this bounds the wait for the 101 or a refusal. */
function upgradeDeadline(
  { streamId, kube, events }: ForwardContext,
  stream: Reply,
  request: ClientRequest,
): () => void {
  const deadline = setTimeout(() => {
    events.failure?.();
    stream.send(timeoutAnswer(streamId, kube.requestTimeoutMs));
    stream.finish();
    request.destroy();
  }, kube.requestTimeoutMs);
  const answered = () => clearTimeout(deadline);
  request.on('close', answered);
  return answered;
}

/** An upgrade (exec, attach, port-forward): node:http, then raw bytes both ways after the 101. */
function forwardUpgrade(ctx: ForwardContext, flat: string[], stream: Reply): Upstream {
  const { streamId, open, kube, out, events } = ctx;
  const { send, finish, fail } = stream;
  const request = upgradeRequest(kube, open, flat);
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
  const ended = () => {
    send({ streamId, kind: { case: 'end', value: {} } });
    finish();
  };
  const writeBody = bodyWriter(streamId, send);
  const answered = upgradeDeadline(ctx, stream, request);
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
    res.on('end', ended);
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
    upgraded.on('end', ended);
    upgraded.on('error', (err) => fail(err.message));
    upgraded.on('close', ended);
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
