import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Tap } from '../tap.js';

/** One backend of the balancer: a replica's port, with what the balancer saw of it. */
export interface Backend {
  readonly name: string;
  readonly port: number;
  /** Connections handed to it so far. */
  connections: number;
  /** Its connections still open on the client side. */
  readonly live: Set<net.Socket>;
  /** When false the balancer skips it, as a Service skips an unready endpoint. */
  ready: boolean;
}

export interface BalancerOptions {
  /**
   * What the client sees when the backend's side of a connection ends: `close` (the default) passes
   * the close on, as on one host; `blackhole` keeps the client's side open and silent, as when the
   * backend's machine vanished and no FIN or RST ever reaches the client (only its pings can tell).
   */
  onBackendLoss?: 'close' | 'blackhole';
}

/** A client connection the balancer passed on, and when its client closed it (after a blackholed loss). */
export interface Passed {
  backend: string;
  openedAt: number;
  closedByClientAt?: number;
  backendLostAt?: number;
}

/**
 * A TCP round-robin balancer in front of replicas, written for the tests: each new connection goes
 * to the next ready backend; a backend that refuses the connection is skipped (the next one is
 * tried); with no backend left the client's connection is reset.
 */
export class Balancer {
  readonly backends: Backend[] = [];
  readonly passed: Passed[] = [];
  private next = 0;
  private readonly server: net.Server;
  port = 0;
  /** See BalancerOptions; may be changed at any time (it applies to losses from then on). */
  onBackendLoss: 'close' | 'blackhole';

  constructor(options: BalancerOptions = {}) {
    this.onBackendLoss = options.onBackendLoss ?? 'close';
    this.server = net.createServer({ noDelay: true }, (client) => this.accept(client));
  }

  async listen(t: Tap, port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    t.teardown(() => this.close());
    return `127.0.0.1:${this.port}`;
  }

  add(name: string, port: number): Backend {
    const backend: Backend = { name, port, connections: 0, live: new Set(), ready: true };
    this.backends.push(backend);
    return backend;
  }

  backend(name: string): Backend {
    const found = this.backends.find((b) => b.name === name);
    if (!found) throw new Error(`no backend ${name}`);
    return found;
  }

  /** Connections handed to each backend, by name. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.backends.map((b) => [b.name, b.connections]));
  }

  /** Open client connections per backend, by name. */
  liveCounts(): Record<string, number> {
    return Object.fromEntries(this.backends.map((b) => [b.name, b.live.size]));
  }

  close(): void {
    for (const b of this.backends) for (const s of b.live) s.destroy();
    this.server.close();
  }

  private accept(client: net.Socket): void {
    client.on('error', () => undefined);
    client.pause();
    const order = this.backends.length;
    const start = this.next;
    this.next = (this.next + 1) % Math.max(1, order);
    const tryFrom = (i: number): void => {
      if (i >= order || client.destroyed) {
        client.resetAndDestroy();
        return;
      }
      const backend = this.backends[(start + i) % order]!;
      if (!backend.ready) return tryFrom(i + 1);
      const upstream = net.connect({ host: '127.0.0.1', port: backend.port, noDelay: true });
      const refused = (): void => tryFrom(i + 1);
      upstream.once('error', refused);
      upstream.once('connect', () => {
        upstream.off('error', refused);
        this.pipe(client, upstream, backend);
      });
    };
    tryFrom(0);
  }

  private pipe(client: net.Socket, upstream: net.Socket, backend: Backend): void {
    backend.connections += 1;
    backend.live.add(client);
    const record: Passed = { backend: backend.name, openedAt: Date.now() };
    this.passed.push(record);
    let lost = false;
    upstream.on('error', () => undefined);
    client.on('close', () => {
      backend.live.delete(client);
      record.closedByClientAt = Date.now();
      upstream.destroy();
    });
    upstream.on('close', () => {
      if (this.onBackendLoss === 'blackhole' && !client.destroyed) {
        // The client hears nothing more and its bytes go nowhere, until it gives up by itself.
        lost = true;
        record.backendLostAt = Date.now();
        client.unpipe(upstream);
        client.on('data', () => undefined);
        client.resume();
        return;
      }
      client.destroy();
    });
    client.on('end', () => {
      if (!lost) upstream.end();
    });
    upstream.on('end', () => {
      if (this.onBackendLoss !== 'blackhole') client.end();
    });
    client.pipe(upstream, { end: false });
    upstream.pipe(client, { end: false });
    client.resume();
  }
}
