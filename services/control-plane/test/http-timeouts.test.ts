import net from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Test } from 'tap';
import { ADMIN_USER, BASIC_ADMIN, build, startKube, until } from './helper.js';
import type { AuditCapture } from './helper.js';

const kube = await startKube(t);
const HEADERS_MS = 500;
const REQUEST_MS = 1000;
/** Node looks for expired requests at most every second (service-kit's applyHttpTimeouts); the rest is slack. */
const SLACK_MS = 1000 + 500;

/** Sends `head` on a fresh connection, then nothing; resolves with what came back and when it was closed. */
async function stallAfter(
  port: number,
  head: string,
  giveUpMs: number,
): Promise<{ closedAfterMs: number | undefined; received: string }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const started = Date.now();
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  socket.write(head);
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), giveUpMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  socket.destroy();
  return { closedAfterMs: closed ? Date.now() - started : undefined, received };
}

/** The control plane with short client timeouts, listening on a port of its own. */
async function listening(t: Test): Promise<{ port: number; audit: AuditCapture }> {
  const { app, audit } = await build(t, kube, {
    HTTP_HEADERS_TIMEOUT: `${HEADERS_MS}ms`,
    HTTP_REQUEST_TIMEOUT: `${REQUEST_MS}ms`,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as AddressInfo).port, audit };
}

/** The audit lines once the first has come (both would be written as the connection closes). */
const auditLines = (audit: AuditCapture) =>
  until('the audit line', () => (audit.lines().length > 0 ? audit.lines() : undefined));

t.test('a client that sends half its headers and stalls is cut off within HTTP_HEADERS_TIMEOUT', async (t) => {
  const { port, audit } = await listening(t);
  const { closedAfterMs, received } = await stallAfter(
    port,
    'GET /api/v1/session HTTP/1.1\r\nHost: cp\r\nUser-Agent: slow',
    10_000,
  );
  t.ok(closedAfterMs !== undefined, 'the connection was closed by the server');
  t.ok((closedAfterMs ?? Infinity) >= HEADERS_MS - 50, `not before the bound (${closedAfterMs} ms)`);
  t.ok(
    (closedAfterMs ?? Infinity) <= HEADERS_MS + SLACK_MS,
    `within ${HEADERS_MS} ms + ${SLACK_MS} ms (${closedAfterMs} ms)`,
  );
  t.match(received, /^HTTP\/1\.1 408 /, 'told 408 Request Timeout');
  t.match(received, /\r\n\r\n\{"type":"urn:gsp:problem:request-timeout"/, 'as problem+json');
  const lines = await auditLines(audit);
  t.equal(lines.length, 1, 'audited once');
  t.match(lines[0], { status: 408, result: 'failure', clientIP: '127.0.0.1' });
});

t.test(
  'a client that sends its headers and half its body, then stalls, is cut off within HTTP_REQUEST_TIMEOUT',
  async (t) => {
    const { port, audit } = await listening(t);
    const head = [
      'POST /api/v1/apikeys HTTP/1.1',
      'Host: cp',
      `Authorization: ${BASIC_ADMIN.authorization}`,
      'Content-Type: application/json',
      'Content-Length: 100',
      '',
      '{"name":',
    ].join('\r\n');
    const { closedAfterMs } = await stallAfter(port, head, 10_000);
    t.ok(closedAfterMs !== undefined, 'the connection was closed by the server');
    t.ok(
      (closedAfterMs ?? Infinity) <= REQUEST_MS + SLACK_MS,
      `within ${REQUEST_MS} ms + ${SLACK_MS} ms (${closedAfterMs} ms)`,
    );
    const lines = await auditLines(audit);
    t.equal(lines.length, 1, 'audited once, as the request it was');
    t.match(lines[0], { method: 'POST', path: '/api/v1/apikeys', user: ADMIN_USER, result: 'failure' });
  },
);
