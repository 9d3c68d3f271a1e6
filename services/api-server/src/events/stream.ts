import type { ServerResponse } from 'node:http';
import type { FeedEvent } from './feed-event.js';
import { viewOf } from './feed-event.js';
import type { Identity } from './identity.js';
import type { Replay } from './replay.js';
import type { CloseReason, ReloadReason } from './schemas.js';

export interface FeedStreamOptions {
  subject: string;
  /** The id hash of the console session that opened it; undefined for a bearer token. */
  session: string | undefined;
  /** Bytes queued for the client beyond which it is a slow reader and the stream ends. */
  maxBacklogBytes: number;
  /** Live events held while the replay is read; more and the stream starts with a reload instead. */
  maxPending: number;
}

export interface StartOptions {
  identity: Identity;
  replay: Replay | undefined;
  /** Epoch ms: the token's `exp`. The stream ends then, since the caller's rights do. */
  expiresAtMs: number | undefined;
  headers: Readonly<Record<string, string>>;
}

/** setTimeout fires at once for longer delays. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long a client may take to read a full buffer of its replay before it counts as a slow reader. */
const CATCH_UP_TIMEOUT_MS = 10_000;
/** How long an ended stream's queued bytes may take to leave before the connection is dropped. */
const END_GRACE_MS = 5000;

const reloadFrame = (reason: ReloadReason, id?: string): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: reload\ndata: ${JSON.stringify({ reason })}\n\n`;
const closeFrame = (reason: CloseReason): string => `event: close\ndata: ${JSON.stringify({ reason })}\n\n`;

/**
 * One caller's `GET /api/v1/events`. It receives every event of the process from the first
 * moment (held until `start`, so none falls between subscribing and reading the replay) and
 * writes the ones its caller may see.
 */
export class FeedStream {
  private pending: FeedEvent[] | undefined = [];
  private pendingReload: ReloadReason | undefined;
  /** Replayed before the relay published them: their live copy is not shown again. */
  private unpublished: Set<string> | undefined;
  private res: ServerResponse | undefined;
  private identity: Identity | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private ended = false;
  private closed: Promise<void> | undefined;
  /** Its session ended before the answer's head was sent: it closes as soon as it is. */
  private signedOut = false;
  private readonly endListeners: (() => void)[] = [];

  constructor(private readonly options: FeedStreamOptions) {}

  /** A live event of the process, in publication order. */
  deliver(event: FeedEvent): void {
    if (this.ended) return;
    if (this.pending === undefined) {
      if (this.unpublished?.delete(event.id)) return;
      return this.show(event, true);
    }
    if (this.pending.length < this.options.maxPending) this.pending.push(event);
    else this.pendingReload = 'replay-limit';
  }

  /** Events may have been missed (the bus reconnected): the client must reload. */
  resync(): void {
    if (this.pending !== undefined) this.pendingReload = 'resync';
    else this.write(reloadFrame('resync'));
  }

  /** The console session that opened the stream ended: the right to it ends now. */
  sessionEnded(): void {
    if (this.res === undefined) this.signedOut = true;
    else void this.close('signed-out');
  }

  heartbeat(): void {
    if (this.pending === undefined) this.write(': heartbeat\n\n');
  }

  /**
   * Sends the answer's head, the replay and what arrived meanwhile, as fast as the client reads
   * them (live events are held until it has); then the stream is live.
   */
  async start(res: ServerResponse, start: StartOptions): Promise<void> {
    this.res = res;
    this.identity = start.identity;
    // The client may have gone while the replay was read (its 'close' has passed), or the server is closing.
    if (this.ended || res.destroyed || res.socket === null || res.socket.destroyed) return this.finish();
    res.on('close', () => this.finish());
    res.writeHead(200, {
      ...start.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // nginx and similar proxies buffer responses unless told not to.
      'x-accel-buffering': 'no',
      // The connection is never reused after a stream, and closing it lets the server shut down.
      connection: 'close',
    });
    res.write(': gsp events\n\n');
    if (this.signedOut) return this.close('signed-out');
    if (start.expiresAtMs !== undefined) this.expireAt(start.expiresAtMs);
    const replay = start.replay;
    if (replay?.kind === 'reload') this.write(reloadFrame(replay.reason, replay.id));
    // Past member changes are already in the identity read after subscribing; only live ones end the stream.
    if (replay?.kind === 'events') await this.catchUp(replay.events, false);
    const replayed = new Set(replay?.kind === 'events' ? replay.events.map((event) => event.id) : []);
    const afterId = replay?.kind === 'events' ? replay.afterId : -1n;
    while (!this.ended && this.pending !== undefined && (this.pending.length > 0 || this.pendingReload)) {
      const held = this.pending;
      this.pending = [];
      if (this.pendingReload !== undefined) this.write(reloadFrame(this.pendingReload));
      this.pendingReload = undefined;
      if (replay?.kind === 'events') for (const event of held) replay.unpublished.delete(event.id);
      // Held live events the replay holds too, or at or below the id the client saw, are not shown again.
      await this.catchUp(
        held.filter((event) => !replayed.has(event.id) && BigInt(event.id) > afterId),
        true,
      );
    }
    if (this.ended) return;
    this.pending = undefined;
    if (replay?.kind === 'events' && replay.unpublished.size > 0) this.unpublished = replay.unpublished;
  }

  /** Writes `events`, waiting for the client to read whenever the response's buffer is full. */
  private async catchUp(events: readonly FeedEvent[], live: boolean): Promise<void> {
    for (const event of events) {
      if (this.ended) return;
      this.show(event, live);
      if (this.res!.writableNeedDrain) await this.drained();
    }
  }

  private drained(): Promise<void> {
    const res = this.res!;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      // A client that reads nothing for this long is not catching up.
      const timer = setTimeout(() => {
        done();
        this.slowReader();
      }, CATCH_UP_TIMEOUT_MS);
      res.once('drain', done);
      res.once('close', done);
    });
  }

  /** Says why, then ends the stream. */
  close(reason: CloseReason): Promise<void> {
    this.write(closeFrame(reason));
    return this.end();
  }

  /** Drops a stream that never started (its replay could not be read). */
  abandon(): void {
    this.markEnded();
  }

  /** Called once, when the stream ends for whatever reason. */
  onEnd(listener: () => void): void {
    if (this.ended) listener();
    else this.endListeners.push(listener);
  }

  private show(event: FeedEvent, live: boolean): void {
    const view = viewOf(this.identity!, event);
    if (view !== undefined) this.write(event.frame(view));
    if (live && event.name === 'member' && event.subject === this.options.subject) void this.close('access-changed');
  }

  private write(frame: string): void {
    const res = this.res;
    if (this.ended || res === undefined) return;
    res.write(frame);
    if (res.writableLength > this.options.maxBacklogBytes) this.slowReader();
  }

  private slowReader(): void {
    if (this.ended) return;
    // Queued behind the backlog: a client that catches up learns it must reload.
    this.res?.write(reloadFrame('slow-reader'));
    void this.end();
  }

  private expireAt(atMs: number): void {
    const delay = atMs - Date.now();
    if (delay <= 0) {
      void this.close('token-expired');
      return;
    }
    this.expiry = setTimeout(() => this.expireAt(atMs), Math.min(delay, MAX_TIMER_MS));
    this.expiry.unref();
  }

  /** Ends the response; resolves once the connection is closed (dropped after a grace period). */
  private end(): Promise<void> {
    const res = this.res;
    this.markEnded();
    if (res === undefined || res.destroyed) return Promise.resolve();
    this.closed ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => res.destroy(), END_GRACE_MS);
      timer.unref();
      res.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      res.end();
    });
    return this.closed;
  }

  private finish(): void {
    this.markEnded();
    // A client that went away may leave its half of the socket open; the stream is over either way.
    this.res?.destroy();
  }

  private markEnded(): void {
    if (this.ended) return;
    this.ended = true;
    this.pending = undefined;
    clearTimeout(this.expiry);
    for (const listener of this.endListeners.splice(0)) listener();
  }
}
