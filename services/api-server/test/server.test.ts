import t from 'tap';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freshSchema, JWT_SECRET, token } from './helper.js';
import { nodeEntry } from '@gsp/service-kit/testing/entry';

const server = fileURLToPath(new URL('../src/server.ts', import.meta.url));

t.test('the server process listens, then shuts down cleanly on SIGTERM', async (t) => {
  const { url } = await freshSchema(t);
  const child = spawn(process.execPath, nodeEntry(server), {
    env: { PATH: process.env.PATH, DATABASE_URL: url, AUTH_JWT_SECRET: JWT_SECRET, PORT: '0', METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + 30_000;
  let address: string | undefined;
  while (!address && Date.now() < deadline) {
    address = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    if (!address) await new Promise((r) => setTimeout(r, 50));
  }
  t.ok(address, 'it logged its listening address');
  t.equal((await fetch(`${address}/readyz`)).status, 200);
  const metrics = /"url":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(output)?.[1];
  t.ok(metrics, 'it logged where metrics are served');
  t.match(await (await fetch(metrics!)).text(), /gsp_api_requests_total/, 'metrics on METRICS_PORT');

  child.kill('SIGTERM');
  t.equal(await exited, 0, 'exit code 0 after a graceful close');
  t.match(output, /"msg":"shutting down"/);
  t.notMatch(output, new RegExp(JWT_SECRET), 'the secret never reaches the log');
});

/** Sends `head` and nothing more; resolves with what the server answered and when it closed the connection. */
function stallAfter(address: string, head: string): Promise<{ answer: string; ms: number }> {
  const { hostname, port } = new URL(address);
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ answer, ms: Math.round(performance.now() - started) }));
  });
}

t.test(
  'a client that stalls while sending its request is cut off within HTTP_HEADERS_TIMEOUT / HTTP_REQUEST_TIMEOUT',
  async (t) => {
    const { url } = await freshSchema(t);
    const child = spawn(process.execPath, nodeEntry(server), {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: url,
        AUTH_JWT_SECRET: JWT_SECRET,
        PORT: '0',
        METRICS_PORT: '0',
        HTTP_HEADERS_TIMEOUT: '500ms',
        HTTP_REQUEST_TIMEOUT: '1s',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => child.kill('SIGKILL'));
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const deadline = Date.now() + 30_000;
    let address: string | undefined;
    while (!address && Date.now() < deadline) {
      address = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (!address) await new Promise((r) => setTimeout(r, 50));
    }
    t.ok(address, 'it listens');

    const headers = await stallAfter(address!, 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    t.match(headers.answer, /^HTTP\/1\.1 408 /, 'stalled in the headers: 408');
    t.ok(
      headers.ms >= 450 && headers.ms < 1500,
      `closed after ${headers.ms} ms (HTTP_HEADERS_TIMEOUT 500 ms, not 60 s)`,
    );

    const head =
      'PUT /api/v1/platform/feature-flags/cli_access.enabled HTTP/1.1\r\nHost: x\r\n' +
      `Authorization: Bearer ${await token('someone')}\r\n`;
    const body = await stallAfter(address!, `${head}Content-Type: application/json\r\nContent-Length: 20\r\n\r\n{"val`);
    t.match(body.answer, /^HTTP\/1\.1 408 /, 'stalled in the body: 408');
    t.ok(body.ms >= 950 && body.ms < 2500, `closed after ${body.ms} ms (HTTP_REQUEST_TIMEOUT 1 s, not 300 s)`);
    t.comment(`stalled headers cut after ${headers.ms} ms, stalled body after ${body.ms} ms`);
  },
);
