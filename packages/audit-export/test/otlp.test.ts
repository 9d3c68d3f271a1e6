import t from 'tap';
import fc from 'fast-check';
import { create, equals, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  deliver,
  ExportLogsServiceRequestSchema,
  ExportLogsServiceResponseSchema,
  exportLogsRequest,
  otlpLogsUrl,
  otlpSink,
} from '@gsp/audit-export';
import type { ExportRecord } from '@gsp/audit-export';
import type { AnyValue, AnyValueSchema, KeyValue } from '../src/gen/opentelemetry/proto/common/v1/common_pb.js';
import { SeverityNumber } from '../src/gen/opentelemetry/proto/logs/v1/logs_pb.js';
import { sampleRecords, startReceiver } from '@gsp/audit-export/testing';

const resource = { serviceName: 'gsp-control-plane', serviceInstanceId: 'cp-0' };

/** An attribute's value as plain JS, to compare with the record's field. */
function plain(value: AnyValue | undefined): unknown {
  switch (value?.value.case) {
    case 'stringValue':
    case 'boolValue':
    case 'doubleValue':
      return value.value.value;
    case 'intValue':
      return Number(value.value.value);
    default:
      return null;
  }
}

function attributes(list: KeyValue[]): Map<string, unknown> {
  return new Map(list.map((kv) => [kv.key, plain(kv.value)]));
}

t.test('records arrive at /v1/logs and decode with the OpenTelemetry protos, attributes intact', async (t) => {
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.teardown(receiver.close);
  const sink = otlpSink({ url: receiver.url, ...resource, headers: { 'x-api-key': 'k-1' }, timeoutMs: 2000 });
  const records = sampleRecords(3);
  const before = Date.now();
  t.same(await sink.send(records), { outcome: 'delivered' });
  const [request] = receiver.requests;
  if (!request) return t.fail('no request');
  t.equal(request.path, '/v1/logs');
  t.equal(request.headers['content-type'], 'application/x-protobuf');
  t.equal(request.headers['x-api-key'], 'k-1');
  const message = fromBinary(ExportLogsServiceRequestSchema, request.body);
  t.equal(message.resourceLogs.length, 1);
  const [resourceLogs] = message.resourceLogs;
  t.same(
    attributes(resourceLogs?.resource?.attributes ?? []),
    new Map([
      ['service.name', 'gsp-control-plane'],
      ['service.instance.id', 'cp-0'],
    ]),
  );
  const scope = resourceLogs?.scopeLogs[0];
  t.equal(scope?.scope?.name, 'gsp.audit');
  const logs = scope?.logRecords ?? [];
  t.equal(logs.length, 3);
  logs.forEach((log, i) => {
    const record = records[i] as ExportRecord;
    t.equal(log.timeUnixNano, BigInt(Date.parse(record.time)) * 1_000_000n);
    t.ok(log.observedTimeUnixNano >= BigInt(before) * 1_000_000n);
    t.equal(log.severityNumber, SeverityNumber.INFO);
    t.equal(log.severityText, 'INFO');
    t.equal(log.eventName, record.type);
    t.same(JSON.parse(plain(log.body) as string), record.data);
    const attrs = attributes(log.attributes);
    t.equal(attrs.get('event.id'), record.id);
    t.equal(attrs.get('event.name'), record.type);
    t.equal(attrs.get('gsp.audit.actor'), 'alice@example.com');
    t.equal(attrs.get('gsp.audit.status'), 201);
    t.equal(log.attributes.find((a) => a.key === 'gsp.audit.status')?.value?.value.case, 'intValue');
    t.equal(attrs.get('gsp.audit.durationMs'), 12.5);
    t.equal(attrs.get('gsp.audit.allowed'), true);
    t.equal(attrs.get('gsp.audit.labels'), '{"cluster":"eu-1"}');
    t.ok(attrs.has('gsp.audit.note'), 'a null field is an empty AnyValue');
  });
});

/** The request as the generated schema builds it: what the hand encoder must equal. */
function reference(records: readonly ExportRecord[], observedMs: number) {
  const any = (value: unknown): MessageInitShape<typeof AnyValueSchema> => {
    if (typeof value === 'string') return { value: { case: 'stringValue', value } };
    if (typeof value === 'boolean') return { value: { case: 'boolValue', value } };
    if (typeof value === 'number')
      return Number.isSafeInteger(value)
        ? { value: { case: 'intValue', value: BigInt(value) } }
        : { value: { case: 'doubleValue', value } };
    return value === null ? {} : { value: { case: 'stringValue', value: JSON.stringify(value) } };
  };
  const str = (value: string) => any(value);
  return create(ExportLogsServiceRequestSchema, {
    resourceLogs: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: str(resource.serviceName) },
            { key: 'service.instance.id', value: str(resource.serviceInstanceId) },
          ],
        },
        scopeLogs: [
          {
            scope: { name: 'gsp.audit' },
            logRecords: records.map((r) => ({
              timeUnixNano: BigInt(Date.parse(r.time)) * 1_000_000n,
              observedTimeUnixNano: BigInt(observedMs) * 1_000_000n,
              severityNumber: SeverityNumber.INFO,
              severityText: 'INFO',
              eventName: r.type,
              body: str(JSON.stringify(r.data)),
              attributes: [
                { key: 'event.id', value: str(r.id) },
                { key: 'event.name', value: str(r.type) },
                ...Object.entries(r.data).map(([k, v]) => ({ key: `gsp.audit.${k}`, value: any(v) })),
              ],
            })),
          },
        ],
      },
    ],
  });
}

t.test('the hand encoder writes the same message as the generated schema, for any records', (t) => {
  const json = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.boolean(),
    fc.integer(),
    fc.maxSafeInteger(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
    fc.constant(null),
    fc.dictionary(fc.string(), fc.string()),
    fc.array(fc.integer()),
  );
  const record = fc.record({
    id: fc.string({ unit: 'binary' }),
    type: fc.string(),
    time: fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()),
    data: fc.dictionary(fc.string({ unit: 'binary', maxLength: 300 }), json, { maxKeys: 12 }),
  });
  fc.assert(
    fc.property(fc.array(record, { maxLength: 30 }), fc.nat(4e12), (records, observed) => {
      const ours = fromBinary(ExportLogsServiceRequestSchema, exportLogsRequest(records, resource, observed));
      const expected = reference(records, observed);
      return equals(ExportLogsServiceRequestSchema, ours, expected);
    }),
  );
  t.end();
});

t.test('a URL that already ends with /v1/logs is used as it is', async (t) => {
  t.equal(otlpLogsUrl('http://collector:4318').href, 'http://collector:4318/v1/logs');
  t.equal(otlpLogsUrl('http://collector:4318/otlp/').href, 'http://collector:4318/otlp/v1/logs');
  t.equal(otlpLogsUrl('http://collector:4318/v1/logs').href, 'http://collector:4318/v1/logs');
});

t.test('a partial success that rejected records poisons the batch', async (t) => {
  const partial = (rejectedLogRecords: bigint, errorMessage: string) =>
    Buffer.from(
      toBinary(
        ExportLogsServiceResponseSchema,
        create(ExportLogsServiceResponseSchema, { partialSuccess: { rejectedLogRecords, errorMessage } }),
      ),
    );
  const answers = [partial(2n, 'body too large'), partial(0n, 'a warning only')];
  const receiver = await startReceiver((_, i) => ({
    status: 200,
    headers: { 'content-type': 'application/x-protobuf' },
    body: answers[i] ?? Buffer.alloc(0),
  }));
  t.teardown(receiver.close);
  const sink = otlpSink({ url: receiver.url, ...resource, timeoutMs: 2000 });
  t.same(await sink.send(sampleRecords(3)), {
    outcome: 'poison',
    reason: 'collector rejected 2 log records: body too large',
    status: 200,
  });
  t.same(await sink.send(sampleRecords(3)), { outcome: 'delivered' }, 'a warning with nothing rejected is delivered');
  t.same(await sink.send(sampleRecords(3)), { outcome: 'delivered' }, 'an empty body is delivered');
});

t.test('a collector answering 503 then 200 gets the batch; a 400 poisons it', async (t) => {
  const statuses = [503, 200, 400];
  const receiver = await startReceiver((_, i) => ({ status: statuses[i] ?? 200, headers: { 'retry-after': '0' } }));
  t.teardown(receiver.close);
  const sink = otlpSink({ url: receiver.url, ...resource, timeoutMs: 2000 });
  const backoff = { baseMs: 1, maxMs: 5 };
  t.same(await deliver(sink, sampleRecords(1), { backoff }), { outcome: 'delivered' });
  t.same(await deliver(sink, sampleRecords(1), { backoff }), { outcome: 'poison', reason: 'HTTP 400', status: 400 });
  t.equal(receiver.requests.length, 3);
});
