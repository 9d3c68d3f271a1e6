import https from 'node:https';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import t from 'tap';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { cloudEventsBatch, deliver, SIGNATURE_HEADER, verifySignature, webhookSink } from '@gsp/audit-export';
import type { SendResult } from '@gsp/audit-export';
import { refusedUrl, sampleRecords, startReceiver, webhookEvents } from '@gsp/audit-export/testing';
import type { Received } from '@gsp/audit-export/testing';

const secret = 'whsec-test-0123456789';
const fast = { baseMs: 1, maxMs: 5 };

t.test('a batch arrives as signed CloudEvents the SDK accepts, in order, with the bearer token', async (t) => {
  const receiver = await startReceiver(() => ({ status: 204 }));
  t.teardown(receiver.close);
  const sink = webhookSink({
    url: `${receiver.url}/audit`,
    source: '/gsp/control-plane/cp-0',
    secret,
    token: 'tok-1',
    timeoutMs: 2000,
  });
  const records = sampleRecords(5);
  t.same(await sink.send(records), { outcome: 'delivered' });
  t.equal(receiver.requests.length, 1);
  const [request] = receiver.requests;
  if (!request) return;
  t.equal(request.path, '/audit');
  t.equal(request.headers['content-type'], 'application/cloudevents-batch+json');
  t.equal(request.headers.authorization, 'Bearer tok-1');
  t.ok(
    verifySignature(request.headers[SIGNATURE_HEADER] as string, request.body, secret, 60_000),
    'signature verifies',
  );
  const batch = webhookEvents(request);
  t.same(
    batch.map((e) => [e.specversion, e.id, e.source, e.type, e.time, e.datacontenttype]),
    records.map((r) => ['1.0', r.id, '/gsp/control-plane/cp-0', r.type, r.time, 'application/json']),
  );
  t.same(
    batch.map((e) => e.data),
    records.map((r) => r.data),
  );
});

t.test('without a secret no signature header is sent', async (t) => {
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.teardown(receiver.close);
  const sink = webhookSink({ url: receiver.url, source: '/gsp/x/0', timeoutMs: 2000 });
  t.same(await sink.send(sampleRecords(1)), { outcome: 'delivered' });
  t.equal(receiver.requests[0]?.headers[SIGNATURE_HEADER], undefined);
  t.equal(receiver.requests[0]?.headers.authorization, undefined);
});

t.test('a 503 with Retry-After is sent again no sooner than the receiver asked', async (t) => {
  const receiver = await startReceiver((_, i) =>
    i === 0 ? { status: 503, headers: { 'retry-after': '1' }, body: 'maintenance' } : { status: 200 },
  );
  t.teardown(receiver.close);
  const sink = webhookSink({ url: receiver.url, source: '/gsp/x/0', secret, timeoutMs: 2000 });
  const retries: [string, number][] = [];
  const result = await deliver(sink, sampleRecords(3), {
    backoff: fast,
    onRetry: (reason, delay) => retries.push([reason, delay]),
  });
  t.same(result, { outcome: 'delivered' });
  t.same(retries, [['HTTP 503: maintenance', 1000]]);
  const [first, second] = receiver.requests;
  t.ok(first && second && second.at - first.at >= 990, `waited ${second && first ? second.at - first.at : NaN} ms`);
  // The retry is signed afresh and carries the same events.
  t.same(
    webhookEvents(second as Received).map((e) => e.id),
    ['r-0', 'r-1', 'r-2'],
  );
  t.ok(verifySignature(second?.headers[SIGNATURE_HEADER] as string, (second as Received).body, secret, 60_000));
});

t.test('a 429, a 408 and a 500 are retried until the receiver takes the batch', async (t) => {
  const statuses = [429, 408, 500, 200];
  const receiver = await startReceiver((_, i) => ({ status: statuses[i] ?? 200 }));
  t.teardown(receiver.close);
  const sink = webhookSink({ url: receiver.url, source: '/gsp/x/0', timeoutMs: 2000 });
  const reasons: string[] = [];
  const result = await deliver(sink, sampleRecords(2), { backoff: fast, onRetry: (reason) => reasons.push(reason) });
  t.same(result, { outcome: 'delivered' });
  t.same(reasons, ['HTTP 429', 'HTTP 408', 'HTTP 500']);
  t.equal(receiver.requests.length, 4);
});

t.test('a receiver that does not answer within the timeout is retried', async (t) => {
  const receiver = await startReceiver((_, i) => (i === 0 ? { status: 200, hang: true } : { status: 200 }));
  t.teardown(receiver.close);
  const sink = webhookSink({ url: receiver.url, source: '/gsp/x/0', timeoutMs: 200 });
  const started = performance.now();
  const first = await sink.send(sampleRecords(1));
  t.same(first, { outcome: 'retry', reason: 'no response within 200 ms' });
  t.ok(performance.now() - started < 2000, 'the timeout bounds the attempt');
  t.same(await sink.send(sampleRecords(1)), { outcome: 'delivered' });
});

t.test('a refused connection is a retry, not an exception', async (t) => {
  const sink = webhookSink({ url: await refusedUrl(), source: '/gsp/x/0', timeoutMs: 2000 });
  t.same(await sink.send(sampleRecords(1)), { outcome: 'retry', reason: 'request failed: ECONNREFUSED' });
});

for (const status of [400, 401, 404, 302]) {
  t.test(`a ${status} poisons the batch and is not sent again`, async (t) => {
    const receiver = await startReceiver(() => ({ status, headers: { location: 'http://elsewhere.example/' } }));
    t.teardown(receiver.close);
    const sink = webhookSink({ url: receiver.url, source: '/gsp/x/0', secret, timeoutMs: 2000 });
    let retried = 0;
    const result: SendResult = await deliver(sink, sampleRecords(2), { backoff: fast, onRetry: () => retried++ });
    t.same(result, { outcome: 'poison', reason: `HTTP ${status}`, status });
    t.equal(retried, 0);
    t.equal(receiver.requests.length, 1);
  });
}

t.test('aborting stops a delivery that keeps being retried', async (t) => {
  const receiver = await startReceiver(() => ({ status: 503 }));
  t.teardown(receiver.close);
  const sink = webhookSink({ url: receiver.url, source: '/gsp/x/0', timeoutMs: 2000 });
  const controller = new AbortController();
  const pending = deliver(sink, sampleRecords(1), {
    backoff: { baseMs: 50, maxMs: 100 },
    signal: controller.signal,
    onRetry: () => controller.abort(),
  });
  await t.rejects(pending);
  t.equal(receiver.requests.length, 1);
});

t.test('an https receiver is trusted through the extra CA, and refused without it', async (t) => {
  const { cert, key } = generateSelfSignedCertificate('localhost');
  const server = https.createServer({ cert, key }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.close();
    server.closeAllConnections();
  });
  const url = `https://localhost:${(server.address() as AddressInfo).port}/audit`;
  const trusted = webhookSink({ url, source: '/gsp/x/0', ca: cert, timeoutMs: 2000 });
  t.same(await trusted.send(sampleRecords(1)), { outcome: 'delivered' });
  const untrusted = webhookSink({ url, source: '/gsp/x/0', timeoutMs: 2000 });
  const result = await untrusted.send(sampleRecords(1));
  t.equal(result.outcome, 'retry');
  t.match(result.outcome === 'retry' ? result.reason : '', /SELF_SIGNED|CERT/);
});

t.test('a batch built from records kept as JSON text is the JSON of the events built from objects', (t) => {
  const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
  const record = fc.record({
    id: fc.string(),
    type: fc.string(),
    time: fc.string(),
    data: fc.dictionary(fc.string(), json),
    asText: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(record, { maxLength: 8 }), fc.string(), (records, source) => {
      const given = records.map(({ asText, ...r }) => (asText ? { ...r, json: JSON.stringify(r.data) } : r));
      const expected = JSON.stringify(
        records.map((r) => ({
          specversion: '1.0',
          id: r.id,
          source,
          type: r.type,
          time: r.time,
          datacontenttype: 'application/json',
          data: r.data,
        })),
      );
      t.equal(cloudEventsBatch(given, source), expected);
    }),
    { numRuns: 300 },
  );
  t.end();
});
