import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { drainingWriter, fromHeaderBlock, HeaderBlockError, toHeaderBlock, Valve } from '@gsp/tunnel-proto';
import type { StreamCut, Tunnel, TunnelStream } from '../tunnel/tunnel.js';
import type { ProxyMetrics } from '../metrics.js';

/** Headers that describe one hop, never forwarded (RFC 9110 7.6.1), plus the caller's credentials. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'authorization',
]);

/**
 * Who the caller is, as kube-apiserver reads it: impersonation, and request-header authentication
 * (X-Remote-User, X-Remote-Group, X-Remote-Extra-*). Only the proxy says who the caller is.
 */
const IDENTITY_PREFIXES = ['impersonate-', 'x-remote-'];

/**
 * Where the request came from, as proxies tell it. kube-apiserver's audit `sourceIPs` lists every
 * address in X-Forwarded-For, then X-Real-Ip, then the connection's; what a caller wrote there
 * would be recorded as its address, so the proxy drops it all and says only what it saw itself.
 */
const FORWARDING = new Set([
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-real-ip',
  'forwarded',
  'via',
]);

/**
 * The address the proxy accepted the connection from, as X-Forwarded-For writes it (`::ffff:10.0.0.1` is
 * `10.0.0.1`).
 */
function clientAddress(socket: { remoteAddress?: string | undefined }): string | undefined {
  const address = socket.remoteAddress;
  return address?.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The request's headers for the agent as a header block: no hop headers, no caller-chosen
 * identity or forwarding chain, the caller as Impersonate-User and the address the proxy saw as
 * X-Forwarded-For. `raw` is Node's `rawHeaders`. Throws HeaderBlockError when a header (the
 * subject, say) cannot cross the tunnel as it is.
 */
export function requestHeaders(
  raw: readonly string[],
  user: string,
  upgrade: string | undefined,
  client: string | undefined,
): string {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (HOP.has(name) || FORWARDING.has(name) || IDENTITY_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    out.push(name, raw[i + 1] as string);
  }
  if (upgrade !== undefined) out.push('connection', 'Upgrade', 'upgrade', upgrade);
  if (client !== undefined) out.push('x-forwarded-for', client);
  out.push('impersonate-user', user);
  return toHeaderBlock(out);
}

type Encoded = { headers: string } | { refusal: string };

/** `requestHeaders`, or a 400 `Status` body when they cannot cross the tunnel: the caller's error, not the proxy's. */
function encodeRequestHeaders(req: IncomingMessage, user: string, upgrade: string | undefined): Encoded {
  try {
    return { headers: requestHeaders(req.rawHeaders, user, upgrade, clientAddress(req.socket)) };
  } catch (err) {
    if (!(err instanceof HeaderBlockError)) throw err;
    return { refusal: JSON.stringify(status(400, `the request cannot be forwarded: ${err.message}`, 'BadRequest')) };
  }
}

/** The answer's headers as a flat `[name, value, ...]` list (what `writeHead` takes as is), without hop headers. */
function responseHeaders(block: string, keepUpgrade: boolean): string[] {
  const flat = fromHeaderBlock(block);
  const out: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const key = (flat[i] as string).toLowerCase();
    if (HOP.has(key) && !(keepUpgrade && (key === 'upgrade' || key === 'connection'))) continue;
    out.push(flat[i] as string, flat[i + 1] as string);
  }
  return out;
}

/**
 * Writes the answer to the client; when the client falls behind, the agent pauses this stream
 * until the client has drained, so a slow reader neither fills the proxy's memory nor holds up
 * the other streams in the tunnel.
 */
function answerWriter(
  stream: () => TunnelStream,
  metrics: ProxyMetrics,
): (target: NodeJS.WritableStream, chunk: Uint8Array) => void {
  return drainingWriter(
    () => {
      metrics.streamPauses.inc();
      stream().pause();
    },
    () => stream().resume(),
  );
}

/** Feeds the client's bytes into the tunnel, held while the agent asks or the tunnel is backed up. */
function feed(source: NodeJS.ReadableStream, stream: TunnelStream, valve: Valve): void {
  const release = () => valve.release('tunnel');
  source.on('data', (chunk: Buffer) => {
    if (stream.write(chunk)) return;
    valve.hold('tunnel');
    stream.whenDrained(release);
  });
  source.on('end', () => stream.end());
}

/** `watch=true` (or another value Go's ParseBool reads as true), or a legacy `/watch/` path: an event stream. */
const WATCH = /[?&]watch=(?:1|t|T|true|TRUE|True)(?:&|$)|^\/(?:api\/[^/?]+|apis\/[^/?]+\/[^/?]+)\/watch\//;

/** The first value of header `name` in a flat `[name, value, ...]` list. */
function header(flat: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < flat.length; i += 2) if ((flat[i] as string).toLowerCase() === name) return flat[i + 1];
  return undefined;
}

/**
 * Whether a cut can be told inside the answer as kube-apiserver tells a watch's end: a JSON
 * watch event of type ERROR carrying the `Status`. Only JSON (a protobuf watch is length-framed)
 * and only uncompressed, so the event is one more line kubectl decodes.
 */
function isJsonWatch(path: string, status: number, headers: readonly string[]): boolean {
  if (status !== 200 || !WATCH.test(path)) return false;
  const encoding = header(headers, 'content-encoding');
  const json = /^application\/json(?:[;\s]|$)/i.test(header(headers, 'content-type') ?? '');
  return json && (encoding === undefined || encoding === 'identity');
}

/** The Kubernetes `reason` of each status code the proxy cuts a stream with. */
const REASONS: Readonly<Record<number, string>> = {
  403: 'Forbidden',
  404: 'NotFound',
  410: 'Gone',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const reasonOf = (code: number): string => REASONS[code] ?? 'InternalError';

/** Forwards a plain request through the tunnel and streams the answer back. */
export function forwardRequest(
  tunnel: Tunnel,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  user: string,
  metrics: ProxyMetrics,
): void {
  const encoded = encodeRequestHeaders(req, user, undefined);
  if ('refusal' in encoded) {
    metrics.requests.inc({ kind: 'request', code: 400 });
    // Exactly `application/json`, as kube-apiserver sends (see the proxy's own refusals).
    res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(encoded.refusal) });
    res.end(encoded.refusal);
    return;
  }
  let finished = false;
  /** The answer is a JSON watch, and what was written of it ends at an event boundary (events end in a newline). */
  let jsonWatch = false;
  let atBoundary = true;
  const write = answerWriter(() => stream, metrics);
  // RFC 9112 6.3: a request has a body only with Content-Length or Transfer-Encoding.
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  const body = hasBody
    ? new Valve(
        () => req.pause(),
        () => req.resume(),
      )
    : undefined;
  const stream = tunnel.open(req.method ?? 'GET', path, encoded.headers, !hasBody, user, {
    onResponse(status, headers) {
      const flat = responseHeaders(headers, false);
      jsonWatch = isJsonWatch(path, status, flat);
      res.writeHead(status, flat);
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
      if (chunk.byteLength > 0) atBoundary = chunk[chunk.byteLength - 1] === 0x0a;
      write(res, chunk);
    },
    onEnd() {
      finished = true;
      res.end();
    },
    onPause: () => body?.hold('agent'),
    onResume: () => body?.release('agent'),
    onError(cut: StreamCut) {
      finished = true;
      const answer = status(cut.code, cut.message, reasonOf(cut.code));
      if (!res.headersSent) {
        const text = JSON.stringify(answer);
        res.writeHead(cut.code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      } else if (jsonWatch && atBoundary) {
        // As kube-apiserver ends a watch it cannot continue: kubectl prints the Status (and still exits 0).
        res.end(`${JSON.stringify({ type: 'ERROR', object: answer })}\n`);
      } else {
        // Mid-event, or not a JSON watch: aborting (not ending) tells the client the answer is incomplete.
        res.destroy();
      }
    },
  });
  if (body) feed(req, stream, body);
  res.on('close', () => {
    metrics.requests.inc({ kind: 'request', code: res.headersSent ? res.statusCode : 499 });
    if (!finished) stream.cancel();
  });
}

/** Forwards an upgrade (kubectl exec, attach, port-forward over WebSocket) as raw bytes after the 101. */
export function forwardUpgrade(
  tunnel: Tunnel,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  path: string,
  user: string,
  metrics: ProxyMetrics,
): void {
  const encoded = encodeRequestHeaders(req, user, req.headers.upgrade ?? 'websocket');
  if ('refusal' in encoded) {
    metrics.requests.inc({ kind: 'upgrade', code: 400 });
    const length = Buffer.byteLength(encoded.refusal);
    const status400 = `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${length}`;
    socket.end(`${status400}\r\nconnection: close\r\n\r\n${encoded.refusal}`);
    return;
  }
  let answered = false;
  let finished = false;
  const write = answerWriter(() => stream, metrics);
  const source = new Valve(
    () => socket.pause(),
    () => socket.resume(),
  );
  const stream = tunnel.open(req.method ?? 'GET', path, encoded.headers, false, user, {
    onResponse(code, headers) {
      answered = true;
      const upgraded = code === 101;
      metrics.requests.inc({ kind: 'upgrade', code });
      const lines = [`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}`];
      const flat = responseHeaders(headers, upgraded);
      for (let i = 0; i + 1 < flat.length; i += 2) lines.push(`${flat[i]}: ${flat[i + 1]}`);
      if (!upgraded) lines.push('connection: close');
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    },
    onData(chunk) {
      write(socket, chunk);
    },
    onEnd() {
      finished = true;
      socket.end();
    },
    onPause: () => source.hold('agent'),
    onResume: () => source.release('agent'),
    onError(cut: StreamCut) {
      finished = true;
      if (answered) return void socket.destroy();
      metrics.requests.inc({ kind: 'upgrade', code: cut.code });
      const text = JSON.stringify(status(cut.code, cut.message, reasonOf(cut.code)));
      const statusLine = `HTTP/1.1 ${cut.code} ${STATUS_CODES[cut.code] ?? ''}\r\ncontent-type: application/json`;
      socket.end(`${statusLine}\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
    },
  });
  if (head.length > 0) stream.write(head);
  feed(socket, stream, source);
  socket.on('error', () => undefined);
  socket.on('close', () => {
    if (!finished) stream.cancel();
  });
}

/** A Kubernetes `Status`, the body kubectl knows how to print. */
export function status(code: number, message: string, reason: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}
