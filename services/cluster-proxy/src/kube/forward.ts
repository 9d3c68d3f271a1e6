import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { fromHeaderBlock, toHeaderBlock } from '@gsp/tunnel-proto';
import type { Tunnel } from '../tunnel/tunnel.js';

/** Headers that describe one hop, never forwarded (RFC 9110 7.6.1), plus the caller's credentials. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization']);

/**
 * The request's headers for the agent as a header block: no hop headers, no caller-chosen
 * impersonation, the caller as Impersonate-User. `raw` is Node's `rawHeaders`.
 */
export function requestHeaders(raw: readonly string[], user: string, upgrade: string | undefined): string {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (HOP.has(name) || name.startsWith('impersonate-')) continue;
    out.push(name, raw[i + 1] as string);
  }
  if (upgrade !== undefined) out.push('connection', 'Upgrade', 'upgrade', upgrade);
  out.push('impersonate-user', user);
  return toHeaderBlock(out);
}

function responseHeaders(block: string, keepUpgrade: boolean): Record<string, string[]> {
  const flat = fromHeaderBlock(block);
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const key = (flat[i] as string).toLowerCase();
    if (HOP.has(key) && !(keepUpgrade && (key === 'upgrade' || key === 'connection'))) continue;
    (out[key] ??= []).push(flat[i + 1] as string);
  }
  return out;
}

/** Forwards a plain request through the tunnel and streams the answer back. */
export function forwardRequest(tunnel: Tunnel, req: IncomingMessage, res: ServerResponse, path: string, user: string): void {
  let finished = false;
  const stream = tunnel.open(req.method ?? 'GET', path, requestHeaders(req.rawHeaders, user, undefined), {
    onResponse(status, headers) {
      res.writeHead(status, responseHeaders(headers, false));
      // The body usually follows in the same batch of frames: hold the socket until the batch
      // is dispatched, so head, body and end leave in one write (one TLS record, one syscall).
      // A streaming answer (a watch) still gets its head at once.
      res.cork();
      queueMicrotask(() => {
        if (!res.writableEnded && !res.destroyed) res.flushHeaders();
        res.uncork();
      });
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
  const stream = tunnel.open(req.method ?? 'GET', path, requestHeaders(req.rawHeaders, user, req.headers.upgrade ?? 'websocket'), {
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
