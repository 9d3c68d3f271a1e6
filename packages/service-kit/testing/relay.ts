import { connect, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

/** What `startRelay` needs of a test: a teardown to close the relay with. */
export interface RelayTest {
  teardown(fn: () => unknown): void;
}

/**
 * A TCP relay in front of a dependency (PostgreSQL, Redis, a Kubernetes API), to fail it the
 * ways a network does:
 * - `cut()`: every connection is reset and new ones are refused (a partition, a crash);
 * - `stall()`: connections stay open and new ones are accepted, but nothing passes (a hung peer,
 *   a black hole); `stall('answers')` lets requests through and loses only what comes back;
 * - `heal()`: a stall ends; what it held back is delivered (TCP retransmits got through), unless
 *   the relay was started with `stalled: 'drop'`;
 * - `restore()`: new connections pass again; those open during a stall stay silent for good (the
 *   peer failed over, or a NAT forgot them), so a client must give them up by itself.
 */
export interface Relay {
  /** The target URL with its host and port replaced by the relay's (when the target was a URL). */
  url: string;
  host: string;
  port: number;
  cut(): void;
  stall(which?: 'both' | 'answers'): void;
  heal(): void;
  restore(): void;
}

export interface RelayOptions {
  /**
   * What a stalled link does with the bytes (and a close) that reach it: `hold` them for `heal`
   * to deliver in order, or `drop` them for good. Default `hold`.
   */
  stalled?: 'hold' | 'drop';
  /**
   * A close passes even through a stall (the relay then never keeps sockets the test has let go);
   * otherwise a stalled link passes no news of a closed connection either. Default true.
   */
  closeThroughStall?: boolean;
}

type Stall = 'none' | 'both' | 'answers';

interface Link {
  client: Socket;
  upstream: Socket;
  /** What reaches the link is held (or dropped) while stalled: since it opened during a stall, or the stall came. */
  stall: Stall;
  /** Bytes held back while stalled, in order, each with the socket it was bound for; `null` is a close. */
  held: [Socket, Buffer | null][];
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'postgres:': 5432,
  'postgresql:': 5432,
  'redis:': 6379,
  'rediss:': 6379,
  'https:': 443,
};

/** Relays to `target` (a URL, whose scheme gives the default port, or a host and port) on a free port. */
export async function startRelay(
  t: RelayTest,
  target: string | { host: string; port: number },
  options: RelayOptions = {},
): Promise<Relay> {
  const to =
    typeof target === 'string'
      ? (() => {
          const url = new URL(target);
          return { host: url.hostname, port: Number(url.port || DEFAULT_PORTS[url.protocol] || 80) };
        })()
      : target;
  const holding = (options.stalled ?? 'hold') === 'hold';
  const closeThroughStall = options.closeThroughStall ?? true;
  const links = new Set<Link>();
  let mode: 'open' | 'cut' | Exclude<Stall, 'none'> = 'open';

  const server = createServer((client) => {
    if (mode === 'cut') return client.destroy();
    const upstream = connect(to.port, to.host);
    const link: Link = { client, upstream, stall: mode === 'open' ? 'none' : mode, held: [] };
    links.add(link);
    /** Whether what goes toward `socket` is held back now. */
    const stalledTowards = (socket: Socket) => link.stall === 'both' || (link.stall === 'answers' && socket === client);
    const pass = (from: Socket, toward: Socket) => {
      from.on('data', (chunk: Buffer) => {
        if (!stalledTowards(toward)) toward.write(chunk);
        else if (holding) link.held.push([toward, chunk]);
      });
      from.on('error', () => undefined);
      from.on('close', () => {
        if (closeThroughStall) {
          links.delete(link);
          client.destroy();
          upstream.destroy();
        } else if (!stalledTowards(toward)) {
          links.delete(link);
          toward.destroy();
        } else if (holding) link.held.push([toward, null]);
      });
    };
    pass(client, upstream);
    pass(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const link of links) {
          link.client.destroy();
          link.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  let url = `tcp://127.0.0.1:${port}`;
  if (typeof target === 'string') {
    const relayed = new URL(target);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(port);
    url = relayed.toString().replace(/\/$/, target.endsWith('/') ? '/' : '');
  }
  return {
    url,
    host: '127.0.0.1',
    port,
    cut() {
      mode = 'cut';
      for (const link of links) {
        link.held.length = 0;
        link.client.destroy();
        link.upstream.destroy();
      }
    },
    stall(which = 'both') {
      mode = which;
      for (const link of links) link.stall = which;
    },
    heal() {
      mode = 'open';
      for (const link of links) {
        link.stall = 'none';
        for (const [toward, chunk] of link.held.splice(0)) {
          if (toward.destroyed) continue;
          if (chunk === null) toward.end();
          else toward.write(chunk);
        }
      }
    },
    restore() {
      mode = 'open';
    },
  };
}
