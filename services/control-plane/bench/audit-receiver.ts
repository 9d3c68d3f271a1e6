/**
 * The webhook receiver of audit-export.bench.ts, in a process of its own so that it shares an
 * event loop with neither the control plane nor the load generator. It checks each batch's
 * signature, counts its events (without parsing them) and answers 200 at once; while told `down`
 * it answers 503 instead. Messages: `down`, `up`, `count` (answers
 * `{ records, batches, refused, firstAt, lastAt, firstBatch }`, the times in ms since the epoch of
 * the first and last batch taken since the last `up`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifySignature } from '@gsp/audit-export';

const secret = process.env.BENCH_WEBHOOK_SECRET ?? '';
let down = false;
let records = 0;
let batches = 0;
let refused = 0;
let firstAt: number | undefined;
let lastAt: number | undefined;
let firstBatch = 0;

const EVENT = Buffer.from('{"specversion":"1.0",');
/**
 * The events in a batch, counted by the member each begins with rather than by parsing it: the
 * receiver stands for a SIEM on another machine, and its CPU here is the machine's the control
 * plane is measured on (the tests' receivers validate every batch with the CloudEvents SDK).
 */
function countEvents(body: Buffer): number {
  let count = 0;
  for (let at = body.indexOf(EVENT); at >= 0; at = body.indexOf(EVENT, at + EVENT.length)) count++;
  return count;
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (down) return res.writeHead(503).end();
    const body = Buffer.concat(chunks);
    if (!verifySignature(req.headers[SIGNATURE_HEADER] as string | undefined, body, secret, 300_000)) {
      refused++;
      return res.writeHead(401).end();
    }
    const events = countEvents(body);
    records += events;
    batches++;
    lastAt = Date.now();
    if (firstAt === undefined) {
      firstAt = lastAt;
      firstBatch = events;
    }
    res.writeHead(200).end();
  });
});

process.on('message', (m) => {
  if (m === 'down') down = true;
  if (m === 'up') {
    down = false;
    firstAt = undefined;
    lastAt = undefined;
  }
  if (m === 'count') process.send?.({ records, batches, refused, firstAt, lastAt, firstBatch });
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
