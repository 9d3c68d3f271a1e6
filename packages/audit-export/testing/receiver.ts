// What tests of audit export share: a real receiver on port 0, a refused URL, sample records.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP } from 'cloudevents';
import type { CloudEventV1 } from 'cloudevents';
import type { ExportRecord } from '../src/sink.js';

/** One request as the receiver got it. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** performance.now() when the request ended. */
  at: number;
}

/** What the receiver answers; `hang` never answers (a receiver that stalls). */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  hang?: boolean;
}

export interface Receiver {
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

/** The receiver's server: records each request, then answers it as `answer` says. */
function receiverServer(answer: (request: Received, index: number) => Answer, requests: Received[]): http.Server {
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: performance.now(),
      };
      requests.push(received);
      const reply = answer(received, requests.length - 1);
      if (reply.hang) return;
      res.writeHead(reply.status, reply.headers).end(reply.body);
    });
  });
}

const closer = (server: http.Server) => (): Promise<void> =>
  new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });

/** A real HTTP receiver on port 0, answering each request with `answer(request, index)`. */
export async function startReceiver(answer: (request: Received, index: number) => Answer): Promise<Receiver> {
  const requests: Received[] = [];
  const server = receiverServer(answer, requests);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: closer(server) };
}

export interface LaterReceiver extends Receiver {
  /** Starts listening on the receiver's port (its URL's). */
  up(): Promise<void>;
}

/**
 * A receiver whose URL is known now but which listens only from `up()` on: until then its
 * connections are refused, as a receiver that is down refuses them.
 */
export async function laterReceiver(answer: (request: Received, index: number) => Answer): Promise<LaterReceiver> {
  const url = await refusedUrl();
  const requests: Received[] = [];
  const server = receiverServer(answer, requests);
  const port = Number(new URL(url).port);
  return {
    url,
    requests,
    up: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: closer(server),
  };
}

export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** `n` records of the kinds the services export, ids `prefix-0`, `prefix-1`, ... */
export function sampleRecords(n: number, prefix = 'r'): ExportRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    type: i % 2 === 0 ? 'io.gsp.control-plane.request' : 'io.gsp.api-server.featureflags.set',
    time: new Date(Date.UTC(2026, 10, 26, 12, 0, 0, i)).toISOString(),
    data: {
      actor: 'alice@example.com',
      method: 'POST',
      path: `/api/v1/gameservers/gs-${i}`,
      status: 201,
      durationMs: 12.5,
      allowed: true,
      labels: { cluster: 'eu-1' },
      note: null,
    },
  }));
}

/**
 * A webhook request's batch as the CloudEvents SDK reads it (`HTTP.toEvent`, which validates each
 * event); throws when the request is not a valid batch. The SDK is a dev dependency: a service
 * whose tests call this lists `cloudevents` among its own.
 */
export function webhookEvents(request: Received): CloudEventV1<unknown>[] {
  const parsed = HTTP.toEvent({ headers: request.headers, body: request.body.toString('utf8') });
  if (!Array.isArray(parsed)) throw new Error('not a CloudEvents batch');
  return parsed;
}
