/**
 * The console's WebSocket protocol: JSON text frames. From the server `output`, `state` and
 * `closed` (the last message before the socket closes); from the client `input` only.
 */

export type ServerMessage =
  { type: 'output'; data: string } | { type: 'state'; state: string } | { type: 'closed'; reason: string };

export type ClientMessage = { type: 'input'; data: string };

/** What a console accepts and keeps, per connection. */
export interface TerminalLimits {
  /** UTF-8 bytes of `data` in one input message. */
  maxInputBytes: number;
  /** Input messages in any one second. */
  maxInputsPerSecond: number;
  /** Bytes queued for a client that does not read; past it the console is closed. */
  maxBufferedBytes: number;
}

export const TERMINAL_LIMITS: TerminalLimits = {
  maxInputBytes: 4096,
  maxInputsPerSecond: 20,
  maxBufferedBytes: 1024 * 1024,
};

/** The largest WebSocket frame a console client may send; `ws` refuses a larger one itself (1009). */
export const MAX_FRAME_BYTES = 64 * 1024;

/**
 * Whether `error`, raised by a console's WebSocket, is the client breaking the WebSocket protocol
 * (a frame over the limit, a reserved close code such as 1005, invalid UTF-8): `ws` names those
 * with a `WS_ERR_` code and closes the connection itself. A client's mistake, not the server's.
 */
export function isClientProtocolError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('WS_ERR_');
}

/** Characters of an input line kept in its audit line. */
export const MAX_AUDITED_COMMAND = 256;

export const encode = (message: ServerMessage): string => JSON.stringify(message);

/** A client message, or why it is refused (the console is then closed with that reason). */
export function parseClientMessage(
  frame: string,
): { ok: true; message: ClientMessage } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(frame);
  } catch {
    return { ok: false, reason: 'invalid message: not JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, reason: 'invalid message: expected a JSON object such as {"type":"input","data":"help\\n"}' };
  }
  const { type, data, ...rest } = parsed as Record<string, unknown>;
  if (type !== 'input') {
    const shown =
      typeof type === 'string'
        ? JSON.stringify(type.slice(0, 40))
        : String(type === undefined ? 'missing' : typeof type);
    return { ok: false, reason: `unknown message type ${shown}: the client sends only {"type":"input","data":"..."}` };
  }
  if (typeof data !== 'string') return { ok: false, reason: 'invalid message: input needs "data", a string' };
  const extra = Object.keys(rest);
  if (extra.length > 0)
    return { ok: false, reason: `invalid message: unknown field ${JSON.stringify(extra[0]?.slice(0, 40))}` };
  return { ok: true, message: { type: 'input', data } };
}

/** `text` cut to `max` UTF-16 units, never between the two halves of a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * Input as lines, for the audit: the lines a game reads on its stdin, whatever the chunking of
 * the messages. A line is kept up to MAX_AUDITED_COMMAND characters (the rest is not stored);
 * blank lines are left out.
 */
export class LineSplitter {
  private current = '';

  /** The lines `text` completes. */
  push(text: string): string[] {
    const lines: string[] = [];
    const parts = text.split(/\r\n|\r|\n/);
    for (let i = 0; i < parts.length; i++) {
      this.current = cutText(this.current + (parts[i] as string), MAX_AUDITED_COMMAND);
      if (i < parts.length - 1) {
        if (this.current.trim() !== '') lines.push(this.current);
        this.current = '';
      }
    }
    return lines;
  }

  /** The unfinished line, if any (the console is closing). */
  flush(): string | undefined {
    const rest = this.current;
    this.current = '';
    return rest.trim() === '' ? undefined : rest;
  }
}

/** At most `max` events in any window of `windowMs`. */
export class RateWindow {
  private readonly times: number[] = [];

  constructor(
    private readonly max: number,
    private readonly windowMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Counts one event; false when it is one too many. */
  take(): boolean {
    const now = this.now();
    while (this.times.length > 0 && now - (this.times[0] as number) >= this.windowMs) this.times.shift();
    if (this.times.length >= this.max) return false;
    this.times.push(now);
    return true;
  }
}
