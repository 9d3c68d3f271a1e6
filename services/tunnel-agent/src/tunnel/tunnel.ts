import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import type { OutgoingHttpHeaders } from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';
import { codeFromHttpStatus, endStreamFromJson } from '@connectrpc/connect/protocol-connect';
import {
  agentEnvelope,
  BatchQueue,
  END_STREAM_FLAG,
  EnvelopeReader,
  frameDataBytes,
  HELD_REPLICAS_HEADER,
  proxyFramesIn,
  TUNNEL_CONTENT_TYPE,
  TUNNEL_RPC_PATH,
  TUNNEL_WINDOW_BYTES,
} from '@gsp/tunnel-proto';
import type { Hello } from '@gsp/tunnel-proto';
import { ProxyFront } from '../front.js';
import type { ProxyFrontOptions } from '../front.js';
import type { AgentFrameInit } from '../forward.js';
import { watchSilence } from './keepalive.js';

export interface DialOptions {
  proxyTunnelUrl: string;
  /** Extra CA certificates (PEM) trusted for an https: tunnel URL; the system's stay trusted. */
  proxyCa?: string | undefined;
  pingIntervalMs: number;
  connectTimeoutMs: number;
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
 * Dials the proxy's TUNNEL_PORT (h2c or TLS) within `connectTimeoutMs`, Nagle off: frames are small and
 * latency-bound.
 */
function dialer(options: DialOptions): () => net.Socket {
  const target = new URL(options.proxyTunnelUrl);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const ms = options.connectTimeoutMs;
  if (target.protocol === 'http:')
    return () => dialWithin(net.connect({ host, port: Number(target.port || 80), noDelay: true }), ms, 'connect');
  return () =>
    dialWithin(
      tls.connect({
        host,
        port: Number(target.port || 443),
        // SNI carries names only (RFC 6066); an IP is checked against the certificate's IP SANs.
        ...(net.isIP(host) ? {} : { servername: host }),
        ALPNProtocols: ['h2'],
        ...(options.proxyCa ? { ca: [...tls.rootCertificates, options.proxyCa] } : {}),
      }),
      ms,
      'secureConnect',
    ).setNoDelay(true);
}

/** An HTTP/2 stream's reset code as a Connect error (Connect's own mapping); undefined for a plain close. */
function resetError(code: number): ConnectError | undefined {
  const c = http2.constants;
  const name = `http/2 stream closed with error code 0x${code.toString(16)}`;
  switch (code) {
    case c.NGHTTP2_NO_ERROR:
      return undefined;
    case c.NGHTTP2_REFUSED_STREAM:
      return new ConnectError(name, Code.Unavailable);
    case c.NGHTTP2_CANCEL:
      return new ConnectError(name, Code.Canceled);
    case c.NGHTTP2_ENHANCE_YOUR_CALM:
      return new ConnectError(name, Code.ResourceExhausted);
    case c.NGHTTP2_INADEQUATE_SECURITY:
    case c.NGHTTP2_HTTP_1_1_REQUIRED:
      return new ConnectError(name, Code.PermissionDenied);
    default:
      return new ConnectError(name, Code.Internal);
  }
}

/**
 * A failed dial or connection: the proxy cannot be reached now (`unavailable`, as Connect's
 * client says), told by its root cause (`connect ECONNREFUSED ...`, not the stream it cancelled).
 */
function unreachable(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  let root = err;
  for (let depth = 0; depth < 8 && root instanceof Error && root.cause instanceof Error; depth++) root = root.cause;
  const message = root instanceof Error ? root.message : String(root);
  return new ConnectError(message, Code.Unavailable, undefined, undefined, err);
}

/** How long the proxy has to close its side once the agent ended its own. */
const CLOSE_WAIT_MS = 1000;

/** An HTTP/2 session of its own to the proxy, with the tunnel's window both ways. */
function openSession(dial: DialOptions): http2.ClientHttp2Session {
  const session = http2.connect(dial.proxyTunnelUrl, {
    createConnection: dialer(dial),
    settings: { initialWindowSize: TUNNEL_WINDOW_BYTES },
  });
  // No http2.connect option widens the connection's receive window.
  // ('connect' can come after the tunnel was given up: the session is destroyed by then.)
  session.once('connect', () => {
    if (!session.destroyed) session.setLocalWindowSize(TUNNEL_WINDOW_BYTES);
  });
  return session;
}

/** The tunnel RPC's request headers: the agent's credentials, and the replicas it holds already. */
function tunnelHeaders(options: TunnelOptions): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    ':method': 'POST',
    ':path': TUNNEL_RPC_PATH,
    'content-type': TUNNEL_CONTENT_TYPE,
    'connect-protocol-version': '1',
    authorization: `Bearer ${options.agentToken}`,
    'x-gsp-cluster-id': options.clusterId,
  };
  const held = heldReplicasValue(options.held);
  if (held !== '') headers[HELD_REPLICAS_HEADER] = held;
  return headers;
}

/**
 * A proxy that takes the connection but never accepts the tunnel (stalled, or a balancer holding
 * it) is given up like a stalled dial, not only at the first missed ping (1.5 ping intervals).
 * Twice the dial's bound, so a dial that stalls is always reported as the dial.
 */
function handshakeDeadline(dial: DialOptions, settle: (err: ConnectError) => void): NodeJS.Timeout {
  const ms = 2 * dial.connectTimeoutMs;
  return setTimeout(
    () => settle(new ConnectError(`the proxy did not accept the tunnel within ${ms} ms`, Code.DeadlineExceeded)),
    ms,
  );
}

/** Why the proxy's response head is not a tunnel stream, or undefined when it is one. */
function headRefusal(head: http2.IncomingHttpHeaders): ConnectError | undefined {
  const status = Number(head[':status']);
  if (status !== 200) return new ConnectError(`the proxy answered HTTP ${status}`, codeFromHttpStatus(status));
  const type = String(head['content-type'] ?? '');
  if (type.toLowerCase() !== TUNNEL_CONTENT_TYPE)
    return new ConnectError(`the proxy answered ${type || 'no content type'}, not a tunnel stream`, Code.Internal);
  return undefined;
}

/** The proxy's stream could not be read (a malformed envelope or frame). */
function unreadable(err: unknown): ConnectError {
  return err instanceof ConnectError
    ? err
    : new ConnectError(`the proxy's stream cannot be read: ${(err as Error).message}`, Code.Internal);
}

/** The proxy ended the stream without the end-of-stream message. */
function untoldEnd(): ConnectError {
  return new ConnectError('the proxy ended the stream without saying how the tunnel ended', Code.Unavailable);
}

/** Why the stream closed: the session's failure, its reset code, or a plain close of the connection. */
function closeError(stream: http2.ClientHttp2Stream, sessionError: unknown): ConnectError | undefined {
  if (sessionError !== undefined) return unreachable(sessionError);
  return resetError(stream.rstCode ?? 0) ?? new ConnectError('the connection to the proxy closed', Code.Unavailable);
}

/**
 * Frames for the proxy: each batch one envelope, written as soon as the stream takes it; the
 * agent's half of the stream ends once the queue has ended and everything in it is written.
 */
function pump(stream: http2.ClientHttp2Stream, out: BatchQueue<AgentFrameInit>, settled: () => boolean): () => void {
  let waitingForDrain = false;
  const write = (): void => {
    if (settled() || waitingForDrain) return;
    for (let batch = out.takeBatch(); batch !== undefined; batch = out.takeBatch()) {
      if (!stream.write(agentEnvelope(batch))) {
        waitingForDrain = true;
        stream.once('drain', () => {
          waitingForDrain = false;
          write();
        });
        return;
      }
    }
    if (out.closed && !stream.writableEnded) stream.end();
  };
  return write;
}

/** A replica id as the held list can carry it: visible ASCII, no comma (the list's separator). */
const LISTABLE = /^[\x21-\x2b\x2d-\x7e]+$/;
/** At most this many ids in the held list (the proxy reads no more). */
export const HELD_REPLICAS_MAX = 64;

/** The `x-gsp-held-replicas` value: the ids the list can carry, at most HELD_REPLICAS_MAX. */
export function heldReplicasValue(ids: Iterable<string>): string {
  return [...ids]
    .filter((id) => LISTABLE.test(id))
    .slice(0, HELD_REPLICAS_MAX)
    .join(',');
}

export interface TunnelOptions extends Omit<ProxyFrontOptions, 'out' | 'onHello'> {
  dial: DialOptions;
  clusterId: string;
  agentToken: string;
  /** The replicas the agent holds a tunnel to now: a replica named here refuses this one as a duplicate. */
  held: Iterable<string>;
}

/**
 * One tunnel connection, from the dial to its end. `hello` resolves when the proxy accepts it
 * (undefined if it ended first: `done` says why); `done` resolves when the proxy closes it and
 * rejects when it fails or is refused. Every request still open then is abandoned.
 */
export class AgentTunnel {
  readonly hello: Promise<Hello | undefined>;
  readonly done: Promise<void>;
  private readonly out = new BatchQueue<AgentFrameInit>({ sizeOf: frameDataBytes });
  private readonly front: ProxyFront;
  /** Ends the running call with an error (set while it runs). */
  private cut: (err: ConnectError) => void = () => undefined;

  constructor(options: TunnelOptions) {
    let accepted: (hello: Hello | undefined) => void = () => undefined;
    this.hello = new Promise((resolve) => (accepted = resolve));
    this.front = new ProxyFront({ ...options, out: this.out, onHello: (hello) => accepted(hello) });
    this.done = this.run(options).finally(() => accepted(undefined));
  }

  /** Requests the proxy opened on this tunnel that have not ended yet. */
  get inFlight(): number {
    return this.front.inFlight;
  }

  /** Resolves once no request is in flight on this tunnel. */
  whenIdle(): Promise<void> {
    return this.front.whenIdle();
  }

  /** Tells the proxy the agent is stopping: it sends no new requests here, those in flight finish. */
  drain(): void {
    this.out.push({ streamId: 0, kind: { case: 'drain', value: {} } });
  }

  /**
   * Ends the tunnel from the agent's side: what is queued goes out first (the last answers), then
   * the agent's half of the stream ends and the proxy closes its own; cut if it has not within 1 s
   * (or `waitMs`, when less is left of a stop's deadline).
   */
  async close(waitMs = CLOSE_WAIT_MS): Promise<void> {
    this.out.end();
    const timer = setTimeout(() => this.abort(), Math.min(waitMs, CLOSE_WAIT_MS));
    await this.done.catch(() => undefined);
    clearTimeout(timer);
  }

  /** Cuts the tunnel at once (`done` then rejects with `canceled`). */
  abort(): void {
    this.cut(new ConnectError('the agent closed the tunnel', Code.Canceled));
  }

  /**
   * The tunnel RPC on a connection of its own (each tunnel is one TCP connection, so that the
   * balancer in front of the replicas routes each dial anew): a Connect bidi stream of
   * `application/connect+proto`, read and written on the HTTP/2 stream itself (see
   * `EnvelopeReader`): each batch of frames is one envelope written as it is encoded, each
   * received envelope is decoded where it arrived.
   */
  private run(options: TunnelOptions): Promise<void> {
    const dial = options.dial;
    return new Promise<void>((resolve, reject) => {
      const session = openSession(dial);
      let sessionError: unknown;
      session.on('error', (err) => (sessionError ??= err));
      const stream = session.request(tunnelHeaders(options));

      let settled = false;
      const settle = (err?: ConnectError): void => {
        if (settled) return;
        settled = true;
        clearTimeout(handshake);
        silence.stop();
        this.out.end();
        this.front.abortAll();
        if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
        session.destroy();
        if (err) reject(err);
        else resolve();
      };
      this.cut = settle;
      const silence = watchSilence(session, dial.pingIntervalMs, settle);
      const handshake = handshakeDeadline(dial, settle);
      void this.hello.then(() => clearTimeout(handshake));

      stream.on('response', (head) => {
        silence.seen();
        const refusal = headRefusal(head);
        if (refusal) settle(refusal);
      });
      // Once the proxy has said how the RPC ended: its error (a refusal), or undefined.
      let ending: { error: ConnectError | undefined } | undefined;
      const reader = new EnvelopeReader((flags, message) => {
        if ((flags & END_STREAM_FLAG) !== 0) {
          ending = { error: endStreamFromJson(message).error };
          if (ending.error) settle(ending.error);
          return;
        }
        for (const frame of proxyFramesIn(message)) this.front.handle(frame);
      });
      stream.on('data', (chunk: Buffer) => {
        silence.seen();
        if (settled) return;
        try {
          reader.push(chunk);
        } catch (err) {
          settle(unreadable(err));
        }
      });
      stream.on('end', () => settle(ending ? ending.error : untoldEnd()));
      stream.on('error', (err) => settle(unreachable(sessionError ?? err)));
      stream.on('close', () => settle(closeError(stream, sessionError)));
      this.out.consume(pump(stream, this.out, () => settled));
    });
  }
}
