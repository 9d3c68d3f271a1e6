import net from 'node:net';
import tls from 'node:tls';
import type { ClientHttp2Stream, Http2Session } from 'node:http2';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import type { Client } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  agentMessage,
  BatchQueue,
  frameDataBytes,
  HELD_REPLICAS_HEADER,
  proxyFramesOf,
  TunnelServiceAgentSide,
  TUNNEL_WINDOW_BYTES,
} from '@gsp/tunnel-proto';
import type { AgentMessageSchema, Hello } from '@gsp/tunnel-proto';
import { ProxyFront } from '../front.js';
import type { ProxyFrontOptions } from '../front.js';
import type { AgentFrameInit } from '../forward.js';
import { guardSession, pingOptions } from './keepalive.js';

export type TunnelClient = Client<typeof TunnelServiceAgentSide>;

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

/** Dials the proxy's TUNNEL_PORT (h2c or TLS) within `connectTimeoutMs`, Nagle off: frames are small and latency-bound. */
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

/**
 * Connect's session manager, with the connection's receive window widened to TUNNEL_WINDOW_BYTES
 * (no http2.connect option does that), and every session guarded (see `guardSession`).
 */
class WideWindowSessionManager extends Http2SessionManager {
  private readonly seen = new WeakSet<Http2Session>();

  override async request(...args: Parameters<Http2SessionManager['request']>): Promise<ClientHttp2Stream> {
    const stream = await super.request(...args);
    const session = stream.session;
    if (session && !this.seen.has(session)) {
      this.seen.add(session);
      session.setLocalWindowSize(TUNNEL_WINDOW_BYTES);
      guardSession(session);
    }
    return stream;
  }
}

/**
 * A Connect client of the proxy's tunnel service on a connection of its own: each tunnel is one
 * TCP connection, so that the balancer in front of the replicas routes each dial anew (a shared
 * HTTP/2 session would carry every tunnel to the one replica it reached). `close` drops it.
 */
function tunnelClient(options: DialOptions): { client: TunnelClient; close(): void } {
  const sessionManager = new WideWindowSessionManager(options.proxyTunnelUrl, pingOptions(options.pingIntervalMs), {
    createConnection: dialer(options),
    settings: { initialWindowSize: TUNNEL_WINDOW_BYTES },
  });
  const transport = createConnectTransport({
    httpVersion: '2',
    baseUrl: options.proxyTunnelUrl,
    sessionManager,
    acceptCompression: [],
  });
  return { client: createClient(TunnelServiceAgentSide, transport), close: () => sessionManager.abort() };
}

/** One `AgentMessage` per batch of queued frames. */
async function* messages(out: BatchQueue<AgentFrameInit>): AsyncIterable<MessageInitShape<typeof AgentMessageSchema>> {
  for await (const frames of out) yield agentMessage(frames);
}

/** How long the proxy has to close its side once the agent ended its own. */
const CLOSE_WAIT_MS = 1000;

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
  private readonly closing = new AbortController();

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
   * the agent's half of the stream ends and the proxy closes its own; cut if it has not within 1 s.
   */
  async close(): Promise<void> {
    this.out.end();
    const timer = setTimeout(() => this.abort(), CLOSE_WAIT_MS);
    await this.done.catch(() => undefined);
    clearTimeout(timer);
  }

  /** Cuts the tunnel at once (`done` then rejects with `canceled`). */
  abort(): void {
    this.closing.abort(new ConnectError('the agent closed the tunnel', Code.Canceled));
  }

  private async run(options: TunnelOptions): Promise<void> {
    const { client, close } = tunnelClient(options.dial);
    // A proxy that takes the connection but never accepts the tunnel (stalled, or a balancer holding
    // it) is given up like a stalled dial, not only at the first missed ping (1.5 ping intervals).
    // Twice the dial's bound, so a dial that stalls is always reported as the dial.
    const handshakeMs = 2 * options.dial.connectTimeoutMs;
    const handshake = new AbortController();
    const timer = setTimeout(
      () =>
        handshake.abort(
          new ConnectError(`the proxy did not accept the tunnel within ${handshakeMs} ms`, Code.DeadlineExceeded),
        ),
      handshakeMs,
    );
    void this.hello.then(() => clearTimeout(timer));
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.agentToken}`,
      'x-gsp-cluster-id': options.clusterId,
    };
    const held = heldReplicasValue(options.held);
    if (held !== '') headers[HELD_REPLICAS_HEADER] = held;
    try {
      const incoming = client.connect(messages(this.out), {
        signal: AbortSignal.any([handshake.signal, this.closing.signal]),
        headers,
      });
      for await (const message of incoming) for (const frame of proxyFramesOf(message)) this.front.handle(frame);
    } finally {
      clearTimeout(timer);
      this.out.end();
      this.front.abortAll();
      close();
    }
  }
}
