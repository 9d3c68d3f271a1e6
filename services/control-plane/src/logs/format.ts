import { StringDecoder } from 'node:string_decoder';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';

export const EVENT_STREAM = 'text/event-stream';
export const PLAIN_TEXT = 'text/plain; charset=utf-8';

/**
 * How much an Accept header wants `type`: the q of the most specific range that names it, and whether it is named
 * itself.
 */
function quality(ranges: { type: string; q: number }[], type: string): { q: number; named: boolean } {
  const [major] = type.split('/');
  let best: { q: number; specificity: number } = { q: 0, specificity: -1 };
  for (const range of ranges) {
    const specificity = range.type === type ? 2 : range.type === `${major}/*` ? 1 : range.type === '*/*' ? 0 : -1;
    if (specificity > best.specificity) best = { q: range.q, specificity };
  }
  return { q: best.q, named: best.specificity === 2 };
}

/**
 * Whether an Accept header prefers Server-Sent Events to plain text: a higher q, or the same q
 * with `text/event-stream` named and `text/plain` only covered by a wildcard, as browsers send
 * it. Anything else, an absent or unreadable header included, gets the default, plain text.
 */
export function prefersEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const ranges = accept.split(',').flatMap((part) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+*-]+$/.test(type)) return [];
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    return Number.isFinite(q) && q >= 0 && q <= 1 ? [{ type, q }] : [];
  });
  const sse = quality(ranges, EVENT_STREAM);
  const text = quality(ranges, 'text/plain');
  if (sse.q === 0 || !sse.named) return false;
  return sse.q > text.q || (sse.q === text.q && !text.named);
}

/** A log line longer than this goes out in pieces, so a line without end cannot fill memory. */
export const MAX_EVENT_LINE = 64 * 1024;

/**
 * The bytes of a container's log as the client asked for them: passed through as plain text,
 * or one Server-Sent Event a line (`data: <line>`) and, when the stream ends, `event: end` with
 * the reason. Backpressure passes through it (a Transform buffers a high-water mark, no more).
 */
export class LogFraming extends Transform {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private reason = 'end of log';

  /** `events`: Server-Sent Events rather than plain text. */
  constructor(readonly events: boolean) {
    super();
  }

  /** Ends the stream for `reason`, which the last event names; the first reason given stands. */
  finish(reason: string): void {
    if (this.writableEnded || this.destroyed) return;
    this.reason = reason;
    this.end();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.events) return callback(null, chunk);
    const text = this.partial + this.decoder.write(chunk);
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > MAX_EVENT_LINE) {
      lines.push(this.partial);
      this.partial = '';
    }
    callback(null, lines.length > 0 ? lines.map(event).join('') : undefined);
  }

  override _flush(callback: TransformCallback): void {
    if (!this.events) return callback();
    const rest = this.partial + this.decoder.end();
    callback(null, `${rest === '' ? '' : event(rest)}event: end\ndata: ${this.reason}\n\n`);
  }
}

/**
 * One line as events: a carriage return ends a line in the event-stream format as a newline
 * does, so a line holding one becomes two events rather than a corrupted field.
 */
function event(line: string): string {
  return line
    .replace(/\r$/, '')
    .split('\r')
    .map((part) => `data: ${part}\n\n`)
    .join('');
}
