import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Header } from '@gsp/tunnel-proto';
import type { Tunnel } from '../tunnel/tunnel.js';

/** Headers that describe one hop, never forwarded (RFC 9110 7.6.1), plus the caller's credentials. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization']);

/** The request's headers for the agent: no hop headers, no caller-chosen impersonation, the caller as Impersonate-User. */
export function requestHeaders(headers: IncomingHttpHeaders, user: string, upgrade: boolean): Header[] {
  const out: Header[] = [];
  const add = (name: string, value: string) => out.push({ $typeName: 'gsp.tunnel.v1.Header', name, value });
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP.has(name) || name.startsWith('impersonate-')) continue;
    for (const v of Array.isArray(value) ? value : [value]) add(name, v);
  }
  if (upgrade) {
    add('connection', 'Upgrade');
    add('upgrade', headers.upgrade ?? 'websocket');
  }
  add('impersonate-user', user);
  return out;
}

function responseHeaders(headers: Header[], keepUpgrade: boolean): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { name, value } of headers) {
    const key = name.toLowerCase();
    if (HOP.has(key) && !(keepUpgrade && (key === 'upgrade' || key === 'connection'))) continue;
    (out[key] ??= []).push(value);
  }
  return out;
}

/** Forwards a plain request through the tunnel and streams the answer back. */
export function forwardRequest(tunnel: Tunnel, req: IncomingMessage, res: ServerResponse, path: string, user: string): void {
  let finished = false;
  const stream = tunnel.open(req.method ?? 'GET', path, requestHeaders(req.headers, user, false), {
    onResponse(status, headers) {
      res.writeHead(status, responseHeaders(headers, false));
      res.flushHeaders();
    },
    onData(chunk) {
      res.write(chunk);
    },
    onEnd() {
      finished = true;
      res.end();
    },
    onError() {
      finished = true;
      // Aborting (not ending) tells the client the answer is incomplete, e.g. a watch cut by the switch.
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status(502, 'the cluster agent failed to answer', 'BadGateway')));
      }
    },
  });
  req.on('data', (chunk: Buffer) => stream.write(chunk));
  req.on('end', () => stream.end());
  res.on('close', () => {
    if (!finished) stream.cancel();
  });
}

/** Forwards an upgrade (kubectl exec, attach, port-forward over WebSocket) as raw bytes after the 101. */
export function forwardUpgrade(tunnel: Tunnel, req: IncomingMessage, socket: Duplex, head: Buffer, path: string, user: string): void {
  let upgraded = false;
  let finished = false;
  const stream = tunnel.open(req.method ?? 'GET', path, requestHeaders(req.headers, user, true), {
    onResponse(code, headers) {
      upgraded = code === 101;
      const lines = [`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}`];
      for (const [name, values] of Object.entries(responseHeaders(headers, upgraded))) for (const v of values) lines.push(`${name}: ${v}`);
      if (!upgraded) lines.push('connection: close');
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    },
    onData(chunk) {
      socket.write(chunk);
    },
    onEnd() {
      finished = true;
      socket.end();
    },
    onError() {
      finished = true;
      socket.destroy();
    },
  });
  if (head.length > 0) stream.write(head);
  socket.on('data', (chunk: Buffer) => stream.write(chunk));
  socket.on('end', () => stream.end());
  socket.on('error', () => undefined);
  socket.on('close', () => {
    if (!finished) stream.cancel();
  });
  void upgraded;
}

/** A Kubernetes `Status`, the body kubectl knows how to print. */
export function status(code: number, message: string, reason: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}
