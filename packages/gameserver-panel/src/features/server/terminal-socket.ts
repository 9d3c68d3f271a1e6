import { wsUrl } from '../../lib/api';
import { consoleTicket, serverPath } from './api';
import type { ServerRef } from './api';
import type { ConsoleMessage } from './types';

/** What the console tells the page. */
export interface TerminalEvents {
  output: (data: string) => void;
  state: (state: string) => void;
  /** The console ended: the server's reason, or what the connection said. */
  closed: (reason: string) => void;
}

/** The console accepts at most 4,096 bytes an input message; lines are sent in pieces under it. */
const MAX_MESSAGE_CHARS = 1000;

function parse(frame: unknown): ConsoleMessage | undefined {
  if (typeof frame !== 'string') return undefined;
  try {
    return JSON.parse(frame) as ConsoleMessage;
  } catch {
    return undefined;
  }
}

/** Why a socket closed without the server's `closed` message. */
function closeReason(event: CloseEvent): string {
  if (event.reason !== '') return event.reason;
  return event.code === 1000 ? 'the connection closed' : `the connection was lost (code ${event.code})`;
}

/**
 * One console session: a single-use ticket (the cookie and X-GSP-Panel prove the caller), then
 * the WebSocket with `?ticket=`, which browsers cannot give credential headers. JSON frames as
 * services/control-plane/src/terminal/protocol.ts has them.
 */
export class TerminalSocket {
  private socket: WebSocket | undefined;
  private ended = false;

  constructor(private readonly events: TerminalEvents) {}

  async open(ref: ServerRef): Promise<void> {
    const ticket = await consoleTicket(ref);
    if (this.ended) return;
    const socket = new WebSocket(wsUrl(`${serverPath(ref)}/console?ticket=${encodeURIComponent(ticket)}`));
    this.socket = socket;
    socket.addEventListener('message', (e: MessageEvent<unknown>) => this.receive(parse(e.data)));
    socket.addEventListener('close', (e) => this.end(closeReason(e)));
  }

  /** Whole lines, each ending in "\n", as one or more input messages. */
  send(text: string): void {
    if (this.socket?.readyState !== WebSocket.OPEN) return;
    for (let at = 0; at < text.length; at += MAX_MESSAGE_CHARS)
      this.socket.send(JSON.stringify({ type: 'input', data: text.slice(at, at + MAX_MESSAGE_CHARS) }));
  }

  /** Closes it from this side (the user left or closed it); no event follows. */
  close(): void {
    this.ended = true;
    this.socket?.close(1000);
  }

  private receive(message: ConsoleMessage | undefined): void {
    if (message === undefined || this.ended) return;
    if (message.type === 'output') this.events.output(message.data);
    else if (message.type === 'state') this.events.state(message.state);
    else if (message.type === 'closed') this.end(message.reason);
  }

  private end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.events.closed(reason);
    this.socket?.close(1000);
  }
}
