import net from 'node:net';
import tls from 'node:tls';
import type { ClientHttp2Stream, Http2Session } from 'node:http2';
import { createClient } from '@connectrpc/connect';
import type { Client } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { BatchQueue, frameDataBytes, TunnelService, TUNNEL_WINDOW_BYTES } from '@gsp/tunnel-proto';
import type { AgentMessageSchema } from '@gsp/tunnel-proto';
import { ProxyFront } from '../front.js';
import type { ProxyFrontOptions } from '../front.js';
import type { AgentFrameInit } from '../forward.js';
import { guardSession, pingOptions } from './keepalive.js';

export type TunnelClient = Client<typeof TunnelService>;

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

/** The Connect client of the proxy's tunnel service, over one kept-alive HTTP/2 connection at a time. */
export function tunnelClient(options: DialOptions): TunnelClient {
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
  return createClient(TunnelService, transport);
}

/** One `AgentMessage` per batch of queued frames. */
async function* messages(out: BatchQueue<AgentFrameInit>): AsyncIterable<MessageInitShape<typeof AgentMessageSchema>> {
  for await (const frames of out) yield { frames };
}

export interface TunnelOptions extends Omit<ProxyFrontOptions, 'out'> {
  client: TunnelClient;
  clusterId: string;
  agentToken: string;
  /** Aborted when the agent stops. */
  signal: AbortSignal;
}

/**
 * One tunnel connection, from the Connect stream's opening to its end: resolves when the proxy
 * closes it, throws when it fails or is refused. Every request still open then is abandoned.
 */
export async function runTunnel(options: TunnelOptions): Promise<void> {
  const out = new BatchQueue<AgentFrameInit>({ sizeOf: frameDataBytes });
  const front = new ProxyFront({ ...options, out });
  try {
    const incoming = options.client.connect(messages(out), {
      signal: options.signal,
      headers: { authorization: `Bearer ${options.agentToken}`, 'x-gsp-cluster-id': options.clusterId },
    });
    for await (const message of incoming) for (const frame of message.frames) front.handle(frame);
  } finally {
    out.end();
    front.abortAll();
  }
}
