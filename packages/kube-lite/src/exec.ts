/**
 * Pod exec and attach over WebSocket with the Kubernetes channel protocol: every binary
 * message starts with a channel byte (0 stdin, 1 stdout, 2 stderr, 3 error/status as JSON,
 * 4 resize); `v5.channel.k8s.io` adds channel 255 with which the client closes a stream.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { PodConsole, Process } from './container/console.js';

export const SUPPORTED_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE = 255;

export interface ExecRequest {
  /** Empty for attach. */
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  attach: boolean;
}

export function parseExecQuery(url: URL, attach: boolean): ExecRequest {
  const flag = (name: string): boolean => ['true', '1'].includes(url.searchParams.get(name) ?? '');
  return {
    command: url.searchParams.getAll('command'),
    stdin: flag('stdin'),
    stdout: url.searchParams.has('stdout') ? flag('stdout') : true,
    stderr: url.searchParams.has('stderr') ? flag('stderr') : !flag('tty'),
    tty: flag('tty'),
    attach,
  };
}

export function exitStatus(code: number, command: string[]): object {
  if (code === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message:
      'command terminated with non-zero exit code: ' +
      `error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

export class ExecServer {
  /** Processes still running, so closing kube-lite can stop them (a sleeping one holds a timer). */
  private readonly running = new Set<Process>();
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => SUPPORTED_PROTOCOLS.find((p) => offered.has(p)) ?? false,
  });

  /** Offers at least one protocol we speak? */
  static acceptsProtocols(header: string | undefined): boolean {
    const offered = (header ?? '').split(',').map((p) => p.trim());
    return SUPPORTED_PROTOCOLS.some((p) => offered.includes(p));
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, request: ExecRequest, console_: PodConsole): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.session(ws, request, console_));
  }

  private session(ws: WebSocket, request: ExecRequest, console_: PodConsole): void {
    const v5 = ws.protocol === 'v5.channel.k8s.io';
    let finished = false;
    let process_: Process;
    const send = (channel: number, data: string | Buffer): void => {
      if (ws.readyState !== ws.OPEN) return;
      const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      ws.send(Buffer.concat([Buffer.from([channel]), payload]));
    };
    const io = {
      stdout: (text: string) => {
        if (request.stdout) send(STDOUT, request.tty ? text.replace(/(?<!\r)\n/g, '\r\n') : text);
      },
      stderr: (text: string) => {
        if (request.stderr) send(STDERR, text);
        else if (request.tty && request.stdout) send(STDOUT, text.replace(/(?<!\r)\n/g, '\r\n'));
      },
      exit: (code: number) => {
        if (finished) return;
        finished = true;
        this.running.delete(process_);
        send(ERROR, JSON.stringify(exitStatus(code, request.command)));
        ws.close(1000);
      },
    };
    if (request.attach) {
      process_ = console_.attach(io);
      if (!request.stdin) {
        // Attach without stdin follows the console's log until the client leaves.
        const onLog = (line: { text: string }): void => io.stdout(`${line.text}\n`);
        console_.on('log', onLog);
        ws.on('close', () => console_.off('log', onLog));
      }
    } else {
      process_ = console_.exec(request.command, io, request.stdin);
    }
    if (!finished) this.running.add(process_);
    const decoder = new TextDecoder();
    ws.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
      const data = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
      if (data.length === 0) return;
      const channel = data[0];
      const body = data.subarray(1);
      if (channel === STDIN && request.stdin) {
        const text = decoder.decode(body, { stream: true });
        if (request.tty) io.stdout(text.replace(/\r/g, '\r\n').replace(/\r\n\n/g, '\r\n'));
        process_.input(text);
      } else if (channel === CLOSE && v5 && body[0] === STDIN) {
        process_.endInput();
      } else if (channel === RESIZE) {
        // Terminal size changes do not matter to the simulated console.
      }
    });
    ws.on('close', () => {
      if (!finished) {
        finished = true;
        this.running.delete(process_);
        process_.kill();
      }
    });
  }

  close(): void {
    for (const process_ of this.running) process_.kill();
    this.running.clear();
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}
