import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { SseEventData } from './schemas.js';

export interface EventStreamOptions {
  /** Comment lines at this interval keep proxies and load balancers from timing the stream out. */
  heartbeatMs: number;
  /** Extra response headers (the request id). */
  headers?: Readonly<Record<string, string>>;
}

// Event ids are unique per process start, so a client's Last-Event-ID from another replica or an
// earlier start is never mistaken for one of ours.
const BOOT = randomBytes(4).toString('hex');
let sequence = 0;

/**
 * One Server-Sent Events response (WHATWG HTML §9.2): `id`, `event: message` and one JSON `data`
 * line per event, as OFREP ADR-0008 shows, and `:` comment lines as heartbeats.
 */
export class EventStream {
  private readonly heartbeat: NodeJS.Timeout;
  private readonly closeListeners = new Set<() => void>();
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    options: EventStreamOptions,
  ) {
    res.writeHead(200, {
      ...options.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // nginx and similar proxies buffer responses unless told not to.
      'x-accel-buffering': 'no',
      // The connection is never reused after a stream, and closing it lets the server shut down.
      connection: 'close',
    });
    res.write(': OFREP event stream\n\n');
    this.heartbeat = setInterval(() => this.comment('heartbeat'), options.heartbeatMs);
    this.heartbeat.unref();
    res.on('close', () => this.cleanup());
  }

  get closed(): boolean {
    return this.ended;
  }

  send(data: SseEventData): void {
    if (this.ended) return;
    sequence += 1;
    this.res.write(`id: ${BOOT}-${sequence}\nevent: message\ndata: ${JSON.stringify(data)}\n\n`);
  }

  comment(text: string): void {
    if (!this.ended) this.res.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
  }

  /** Runs once, when the client goes away or the server ends the stream. */
  onClose(listener: () => void): void {
    if (this.ended) listener();
    else this.closeListeners.add(listener);
  }

  /** Ends the stream; resolves when the connection is closed (or after `timeoutMs`, destroyed). */
  end(timeoutMs = 1000): Promise<void> {
    if (this.res.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.res.destroy();
        resolve();
      }, timeoutMs);
      this.res.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.res.end();
    });
  }

  private cleanup(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    // A client that went away may leave its half of the socket open; the stream is over either way.
    this.res.destroy();
    for (const listener of this.closeListeners) listener();
    this.closeListeners.clear();
  }
}
