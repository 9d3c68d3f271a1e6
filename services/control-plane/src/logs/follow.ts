import type { Readable } from 'node:stream';
import { LogFraming } from './format.js';

/** Why a log stream ended, as the last event and the audit line say it. */
export type LogEnd =
  'end of log' | 'game server deleted' | 'container log ended' | 'log stream cut' | 'control plane shutting down';

export interface LogFollowOptions {
  /** Server-Sent Events rather than plain text. */
  events: boolean;
  /** Kubernetes was asked to follow: the end of its stream is not the end of the log. */
  follow: boolean;
  /** Whose log it is, for the error of a cut plain-text stream: `game server games/one`. */
  what: string;
  /** Whether the game server has gone (deleted, being deleted, or replaced by another of its name). */
  deleted(): boolean;
  /** Told once how the stream ended; not told when the client went first. */
  onEnd(reason: LogEnd): void;
}

/**
 * A container's log on its way to one client: the Kubernetes stream piped through the framing
 * the client asked for, with backpressure (Kubernetes is read only as fast as the client takes
 * the framed bytes). Every way it can end goes through `end(reason)`, once; and whichever way it
 * ends, the client going included, the Kubernetes stream is closed with it.
 */
export class LogFollow {
  /** What the reply sends. */
  readonly body: LogFraming;
  private ended = false;

  constructor(
    private readonly source: Readable,
    private readonly opts: LogFollowOptions,
  ) {
    const body = new LogFraming(opts.events);
    this.body = body;
    source.pipe(body, { end: false });
    source.on('error', () => undefined);
    source.once('end', () => this.end(this.endOfSource()));
    source.once('close', () => {
      if (!source.readableEnded) this.end('log stream cut');
    });
    // Ended, or the client went (Fastify destroys the stream it was sending): no stream outlives it.
    body.once('close', () => {
      this.ended = true;
      source.destroy();
    });
  }

  /** Ends the stream for `reason`; the first reason stands. */
  end(reason: LogEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.opts.onEnd(reason);
    this.source.unpipe(this.body);
    this.source.destroy();
    // Plain text has no way to say it was cut but an unfinished body; events say it in the last one.
    if (reason === 'log stream cut' && !this.body.events) {
      this.body.destroy(new Error(`the log stream of ${this.opts.what} from Kubernetes was cut`));
    } else {
      this.body.finish(reason);
    }
  }

  private endOfSource(): LogEnd {
    if (!this.opts.follow) return 'end of log';
    return this.opts.deleted() ? 'game server deleted' : 'container log ended';
  }
}
