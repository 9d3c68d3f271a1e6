import http2 from 'node:http2';
import type { Http2Session } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { TUNNEL_WINDOW_BYTES } from '@gsp/tunnel-proto';
import { keepAlive } from './keepalive.js';
import { tunnelPort } from './port.js';
import { tunnelHandler } from './service.js';
import type { TunnelServiceOptions } from './service.js';

export interface TunnelServerOptions extends TunnelServiceOptions {
  /** PEM certificate and key; unset means h2c (TLS terminated in front of the proxy). */
  tls: { cert: string; key: string } | undefined;
  /** How often each agent's connection is pinged; no answer within half of it drops the tunnel. */
  pingIntervalMs: number;
}

export interface TunnelServer {
  server: http2.Http2Server | http2.Http2SecureServer;
  /** Resolves with the URL agents dial. */
  listen(port: number, host: string): Promise<string>;
  /** Stops accepting, closes every session, and destroys those still open a second later. */
  close(): Promise<void>;
}

/**
 * TUNNEL_PORT, what faces the agents: HTTP/2, one Connect stream per agent, every connection kept
 * alive by pings. Streams are served as they come (no compatibility request and response objects):
 * a tunnel lives for hours and every frame of every kubectl request crosses it.
 */
export function createTunnelServer(options: TunnelServerOptions): TunnelServer {
  // No compression on the tunnel: batches are small and latency-bound, and bodies that are worth
  // compressing usually already are (kubectl asks the API server for gzip). The Connect protocol
  // with protobuf only, as the agent speaks it: the port then has one request shape to describe and check.
  const handler = tunnelPort(tunnelHandler(options));
  const settings = { initialWindowSize: TUNNEL_WINDOW_BYTES };
  // Agents dial in over the internet with a bearer token: TLS here, or in front of the proxy.
  const server: http2.Http2Server | http2.Http2SecureServer = options.tls
    ? http2.createSecureServer({ ...options.tls, settings, ALPNProtocols: ['h2'] })
    : http2.createServer({ settings });
  server.on('stream', handler);
  const sessions = new Set<Http2Session>();
  // Frames are small and latency-bound: never wait for Nagle.
  server.on('connection', (socket: Socket) => socket.setNoDelay(true));
  server.on('session', (session) => {
    sessions.add(session);
    session.setLocalWindowSize(TUNNEL_WINDOW_BYTES);
    keepAlive(session, options.pingIntervalMs);
    session.on('close', () => sessions.delete(session));
  });
  return {
    server,
    async listen(port, host) {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const bound = (server.address() as AddressInfo).port;
      return `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        for (const s of sessions) s.close();
        setTimeout(() => {
          for (const s of sessions) s.destroy();
        }, 1000).unref();
      }),
  };
}
