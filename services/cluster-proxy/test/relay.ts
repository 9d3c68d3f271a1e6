import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import type { Test } from 'tap';

/**
 * A TCP relay in front of a dependency (PostgreSQL, Redis, a Kubernetes API), to fail it the
 * ways a network does:
 * - `cut()`: every connection is reset and new ones are refused (a partition, a crash);
 * - `stall()`: connections stay open and new ones are accepted, but nothing passes either way
 *   (a hung peer, a black hole);
 * - `heal()`: a stall ends, and what it held back is delivered (TCP retransmits got through);
 * - `restore()`: new connections pass again; those open during a stall stay silent for good (the
 *   peer failed over, or a NAT forgot them), so a client must give them up by itself.
 */
export interface Relay {
  /** `url` with its host and port replaced by the relay's. */
  url: string;
  cut(): void;
  stall(): void;
  heal(): void;
  restore(): void;
}

interface Link {
  client: Socket;
  upstream: Socket;
  /** Bytes held back while stalled, in order, each with the socket it was bound for. */
  held: [Socket, Buffer][];
  /** Stalled when the link was opened or while it was open: silent until healed. */
  stalled: boolean;
}

export async function startRelay(t: Test, url: string): Promise<Relay> {
  const target = new URL(url);
  const defaults: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'redis:': 6379, 'https:': 443 };
  const port = Number(target.port || defaults[target.protocol] || 80);
  const links = new Set<Link>();
  let mode: 'open' | 'cut' | 'stalled' = 'open';

  const server = createServer((client) => {
    if (mode === 'cut') return client.destroy();
    const upstream = connect(port, target.hostname);
    const link: Link = { client, upstream, held: [], stalled: mode === 'stalled' };
    links.add(link);
    const pass = (to: Socket) => (chunk: Buffer) => {
      if (link.stalled) link.held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on('data', pass(upstream));
    upstream.on('data', pass(client));
    for (const s of [client, upstream]) {
      s.on('error', () => undefined);
      // Closing passes even through a stall: the relay must not keep sockets the test has let go.
      s.on('close', () => {
        links.delete(link);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const link of links) link.client.destroy();
        server.close(() => resolve());
      }),
  );
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as AddressInfo).port);
  return {
    url: relayed.toString().replace(/\/$/, url.endsWith('/') ? '/' : ''),
    cut() {
      mode = 'cut';
      for (const link of links) link.client.destroy();
    },
    stall() {
      mode = 'stalled';
      for (const link of links) link.stalled = true;
    },
    heal() {
      mode = 'open';
      for (const link of links) {
        link.stalled = false;
        for (const [to, chunk] of link.held.splice(0)) to.write(chunk);
      }
    },
    restore() {
      mode = 'open';
    },
  };
}
