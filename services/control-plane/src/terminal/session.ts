import type { RawData, WebSocket } from 'ws';
import type { AttachedStream } from '../kube/exec.js';
import { LineSplitter, RateWindow, encode, isClientProtocolError, parseClientMessage } from './protocol.js';
import type { TerminalLimits, ServerMessage } from './protocol.js';

/** WebSocket close codes (RFC 6455, 7.4.1). */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  unsupportedData: 1003,
  policy: 1008,
  protocolError: 1002,
  tooBig: 1009,
  internal: 1011,
} as const;

/** What a console's audit lines say: each input line, and how it ended. */
export interface SessionAudit {
  input(command: string): void;
  close(summary: {
    reason: string;
    result: 'success' | 'failure';
    durationMs: number;
    bytesIn: number;
    bytesOut: number;
  }): void;
}

export interface SessionOptions {
  socket: WebSocket;
  limits: TerminalLimits;
  audit: SessionAudit;
  /** The game server's state when the console opened: the first `state` message. */
  state: string;
  /** Called once, when the session has ended. */
  ended(session: TerminalSession): void;
}

/** How long a closed console's socket may take to finish its closing handshake before it is cut. */
const CLOSE_GRACE_MS = 5000;
/** A close frame's reason holds at most 123 bytes. */
const MAX_CLOSE_REASON_BYTES = 123;
/** The longest delay one timer takes; a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function closeReason(reason: string): string {
  let cut = reason;
  while (Buffer.byteLength(cut) > MAX_CLOSE_REASON_BYTES) cut = cut.slice(0, -1);
  return cut;
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * One open console: a client's WebSocket and its own attach to the game server's container.
 * Input is checked (JSON, size, rate), audited line by line and written to the container's
 * stdin; output goes to this client only, and a client that does not read it is closed once
 * `maxBufferedBytes` wait for it, so it never holds up anyone else. Every end (the client's,
 * the game server's, a limit, a revoked credential) sends `closed` with its reason if the
 * socket is still open, closes the attach and writes the close audit line, once.
 */
export class TerminalSession {
  private stream: AttachedStream | undefined;
  /** Input received before the attach opened. */
  private queued: string[] = [];
  private closed = false;
  private state: string;
  private bytesIn = 0;
  private bytesOut = 0;
  private readonly started = performance.now();
  private readonly lines = new LineSplitter();
  private readonly rate: RateWindow;
  private expiry: NodeJS.Timeout | undefined;

  constructor(private readonly options: SessionOptions) {
    const { socket, limits } = options;
    this.rate = new RateWindow(limits.maxInputsPerSecond);
    this.state = options.state;
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    // Emitted before `close`: a connection the client broke ends as a failure saying how.
    socket.on('error', (err) => {
      if (isClientProtocolError(err))
        this.close(
          `client broke the WebSocket protocol: ${err.message}`,
          err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? CloseCode.tooBig : CloseCode.protocolError,
        );
      else this.close('the connection to the client failed', CloseCode.internal);
    });
    socket.on('close', () => this.close('connection closed', CloseCode.normal));
    this.send({ type: 'state', state: this.state });
  }

  /** The attach has opened: queued input goes first. */
  attached(stream: AttachedStream): void {
    if (this.closed) return stream.close();
    this.stream = stream;
    for (const text of this.queued) stream.write(text);
    this.queued = [];
  }

  output(text: string): void {
    if (this.closed) return;
    this.bytesOut += Buffer.byteLength(text);
    this.send({ type: 'output', data: text });
    if (this.options.socket.bufferedAmount > this.options.limits.maxBufferedBytes)
      this.close('client too slow', CloseCode.policy);
  }

  /** The game server's state, told to the client when it changed. */
  stateChanged(state: string): void {
    if (this.closed || state === this.state) return;
    this.state = state;
    this.send({ type: 'state', state });
  }

  private expiresAt = Infinity;

  /** Closes the console when the credential it was opened with expires. */
  expireAt(time: number): void {
    // The earliest of the credential's ends (a key's expiry, a token's exp) is the one that counts.
    const at = Math.min(time, this.expiresAt);
    this.expiresAt = at;
    clearTimeout(this.expiry);
    const wait = at - Date.now();
    if (wait <= 0) return this.close('credential expired', CloseCode.policy);
    this.expiry = setTimeout(() => this.expireAt(at), Math.min(wait, MAX_TIMER_MS));
  }

  close(reason: string, code: number): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.expiry);
    this.stream?.close();
    this.stream = undefined;
    this.queued = [];
    const rest = this.lines.flush();
    if (rest !== undefined) this.options.audit.input(rest);
    const { socket } = this.options;
    if (socket.readyState === socket.OPEN) {
      this.send({ type: 'closed', reason });
      socket.close(code, closeReason(reason));
      // A client that does not read does not answer the close either.
      const cut = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
      cut.unref();
      socket.once('close', () => clearTimeout(cut));
    }
    const result = code === CloseCode.normal || code === CloseCode.goingAway ? 'success' : 'failure';
    const durationMs = Math.round(performance.now() - this.started);
    this.options.audit.close({ reason, result, durationMs, bytesIn: this.bytesIn, bytesOut: this.bytesOut });
    this.options.ended(this);
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    if (isBinary) return this.close('binary frames are not accepted: send JSON text frames', CloseCode.unsupportedData);
    const parsed = parseClientMessage(textOf(data));
    if (!parsed.ok) return this.close(parsed.reason, CloseCode.policy);
    const text = parsed.message.data;
    const { maxInputBytes, maxInputsPerSecond } = this.options.limits;
    const bytes = Buffer.byteLength(text);
    if (bytes > maxInputBytes) return this.close(`input message larger than ${maxInputBytes} bytes`, CloseCode.tooBig);
    if (!this.rate.take())
      return this.close(`more than ${maxInputsPerSecond} input messages per second`, CloseCode.policy);
    this.bytesIn += bytes;
    // Audited before the game reads it: operators answer for what they type.
    for (const line of this.lines.push(text)) this.options.audit.input(line);
    if (this.stream !== undefined) this.stream.write(text);
    else this.queued.push(text);
  }

  private send(message: ServerMessage): void {
    const { socket } = this.options;
    if (socket.readyState === socket.OPEN) socket.send(encode(message));
  }
}
