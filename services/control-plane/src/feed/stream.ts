import { Readable } from 'node:stream';

/** Why a feed ended, as its `close` event and its audit line say it. */
export type FeedEnd =
  | 'the control plane is shutting down'
  | 'the API key was revoked'
  | 'the API key has expired'
  | 'the credential has expired'
  | 'the panel session has ended'
  | 'the client fell too far behind; reconnect for a new snapshot'
  | 'client went';

export interface FeedStreamOptions {
  /** The namespaces whose game servers the caller may list. */
  visible: 'all' | ReadonlySet<string>;
  /** What the response has queued and not yet handed to the socket (the reply's `writableLength`). */
  queuedInResponse: () => number;
  /** Bytes queued beyond the snapshot past which the reader is too slow and the stream is cut. */
  maxBacklogBytes: number;
  /** How long an ended stream's last bytes may take to leave before the connection is dropped. */
  endGraceMs: number;
  /** Told once how the stream ended, the client going included. */
  onEnd(reason: FeedEnd): void;
}

const closeFrame = (reason: FeedEnd): string => `event: close\ndata: ${JSON.stringify({ reason })}\n\n`;

/**
 * One caller's live feed: the bytes its response sends, pushed as they come and read as fast as
 * the client takes them. What it has not taken is bounded: past the snapshot plus
 * `maxBacklogBytes` queued (here and in the response), the stream says why and ends, so a reader
 * that stops reading costs a bounded amount of memory. Every way it ends goes through `end` once.
 */
export class FeedStream extends Readable {
  private ended = false;
  private limit: number;
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: FeedStreamOptions) {
    super();
    this.limit = options.maxBacklogBytes;
    // The client went (Fastify destroys the body it was sending), or the stream ended and was read.
    this.once('close', () => {
      clearTimeout(this.graceTimer);
      this.finish('client went');
    });
  }

  /** Whether the caller may see game servers of `namespace`. */
  sees(namespace: string): boolean {
    const { visible } = this.options;
    return visible === 'all' || visible.has(namespace);
  }

  /**
   * The first frame, in parts (the list's JSON is shared between feeds, not copied into each):
   * however large, it is not a backlog; what queues beyond it is.
   */
  snapshot(parts: readonly Buffer[]): void {
    this.limit = parts.reduce((sum, part) => sum + part.length, 0) + this.options.maxBacklogBytes;
    for (const part of parts) this.send(part);
  }

  send(frame: Buffer | string): void {
    if (this.ended) return;
    this.push(frame);
    if (this.readableLength + this.options.queuedInResponse() > this.limit)
      this.end('the client fell too far behind; reconnect for a new snapshot');
  }

  /** Says why in a `close` event, then ends; the connection goes after the grace period at the latest. */
  end(reason: Exclude<FeedEnd, 'client went'>): void {
    if (this.ended) return;
    this.push(closeFrame(reason));
    this.finish(reason);
    this.push(null);
    this.graceTimer = setTimeout(() => this.destroy(), this.options.endGraceMs);
    this.graceTimer.unref();
  }

  override _read(): void {
    // Frames are pushed as they happen; the reader's pace is bounded in `send`.
  }

  private finish(reason: FeedEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.options.onEnd(reason);
  }
}
