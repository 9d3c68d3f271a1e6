import { fromBinary } from '@bufbuild/protobuf';
import { ExportLogsServiceResponseSchema } from './gen/opentelemetry/proto/collector/logs/v1/logs_service_pb.js';
import { SeverityNumber } from './gen/opentelemetry/proto/logs/v1/logs_pb.js';
import { post, sinkAgent, statusOutcome } from './http.js';
import { ProtoWriter, Wire } from './proto-writer.js';
import type { ExportRecord, SendResult, Sink } from './sink.js';

export const OTLP_LOGS_PATH = '/v1/logs';
export const OTLP_CONTENT_TYPE = 'application/x-protobuf';
/** The instrumentation scope of every exported record. */
export const OTLP_SCOPE = 'gsp.audit';
/** The prefix of the attributes made from the top-level fields of a record's data. */
export const OTLP_ATTRIBUTE_PREFIX = 'gsp.audit.';

export interface OtlpSinkOptions {
  /** The collector's base URL; records go to `${url}/v1/logs` unless the URL already ends with /v1/logs. */
  url: string;
  serviceName: string;
  serviceInstanceId: string;
  headers?: Record<string, string>;
  timeoutMs: number;
}

/** Writes `value` as the AnyValue kind of a top-level field; objects and arrays travel as their JSON. */
function writeAnyValue(w: ProtoWriter, value: unknown): void {
  switch (typeof value) {
    case 'string':
      w.tag(1, Wire.LengthDelimited).string(value);
      return;
    case 'boolean':
      w.tag(2, Wire.Varint).bool(value);
      return;
    case 'number':
      if (Number.isSafeInteger(value)) w.tag(3, Wire.Varint).int64(value);
      else w.tag(4, Wire.Bit64).double(value);
      return;
    case 'bigint':
      w.tag(3, Wire.Varint).int64(value);
      return;
    default:
      // null stays an empty AnyValue, which OTLP reads as "no value".
      if (value !== null) w.tag(1, Wire.LengthDelimited).string(JSON.stringify(value) ?? '');
  }
}

/** A KeyValue as field `fieldNo` of the enclosing message. */
function writeAttribute(w: ProtoWriter, fieldNo: number, key: string, value: unknown): void {
  w.tag(fieldNo, Wire.LengthDelimited).fork();
  w.tag(1, Wire.LengthDelimited).string(key);
  w.tag(2, Wire.LengthDelimited).fork();
  writeAnyValue(w, value);
  w.join().join();
}

function unixNano(ms: number): bigint {
  return BigInt(ms) * 1_000_000n;
}

/** One record as one LogRecord (field numbers of logs.proto; see the README's wire formats). */
function writeLogRecord(w: ProtoWriter, record: ExportRecord, observedNano: bigint): void {
  const time = Date.parse(record.time);
  // 0 is OTLP's "unknown": a record whose time cannot be read still goes out.
  w.tag(1, Wire.Bit64).fixed64(Number.isNaN(time) ? 0n : unixNano(time));
  w.tag(2, Wire.Varint).int64(SeverityNumber.INFO);
  w.tag(3, Wire.LengthDelimited).string('INFO');
  w.tag(5, Wire.LengthDelimited).fork();
  w.tag(1, Wire.LengthDelimited).string(JSON.stringify(record.data));
  w.join();
  writeAttribute(w, 6, 'event.id', record.id);
  writeAttribute(w, 6, 'event.name', record.type);
  for (const field of Object.keys(record.data)) {
    const value = record.data[field];
    if (value !== undefined) writeAttribute(w, 6, `${OTLP_ATTRIBUTE_PREFIX}${field}`, value);
  }
  w.tag(11, Wire.Bit64).fixed64(observedNano);
  w.tag(12, Wire.LengthDelimited).string(record.type);
}

/**
 * The ExportLogsServiceRequest for a batch, encoded by hand: protobuf-es's reflection encoder
 * manages about 7,000 records/s here, and its BinaryWriter 16,000, below the export target. The
 * bytes are protobuf's own; test/otlp.test.ts compares them, decoded, with the message built from
 * the generated schema.
 */
export function exportLogsRequest(
  records: readonly ExportRecord[],
  resource: { serviceName: string; serviceInstanceId: string },
  observedMs = Date.now(),
): Buffer {
  const w = new ProtoWriter();
  const observedNano = unixNano(observedMs);
  w.tag(1, Wire.LengthDelimited).fork(); // resource_logs
  w.tag(1, Wire.LengthDelimited).fork(); // resource
  writeAttribute(w, 1, 'service.name', resource.serviceName);
  writeAttribute(w, 1, 'service.instance.id', resource.serviceInstanceId);
  w.join();
  w.tag(2, Wire.LengthDelimited).fork(); // scope_logs
  w.tag(1, Wire.LengthDelimited).fork().tag(1, Wire.LengthDelimited).string(OTLP_SCOPE).join();
  for (const record of records) {
    w.tag(2, Wire.LengthDelimited).fork();
    writeLogRecord(w, record, observedNano);
    w.join();
  }
  return w.join().join().finish();
}

/** `${url}/v1/logs`, unless the URL already names that path. */
export function otlpLogsUrl(base: string): URL {
  const url = new URL(base);
  if (!url.pathname.endsWith(OTLP_LOGS_PATH)) url.pathname = `${url.pathname.replace(/\/+$/, '')}${OTLP_LOGS_PATH}`;
  return url;
}

/**
 * A 2xx whose partial success rejected records is a poison batch: the collector has said these
 * records will never be accepted, and the batch is kept for inspection rather than counted as
 * delivered. A body that is not a response message (some collectors answer JSON or nothing)
 * leaves the 2xx as delivered.
 */
function partialSuccessOutcome(status: number, body: Buffer): SendResult {
  let rejected = 0n;
  let message = '';
  try {
    const partial = fromBinary(ExportLogsServiceResponseSchema, body).partialSuccess;
    rejected = partial?.rejectedLogRecords ?? 0n;
    message = partial?.errorMessage ?? '';
  } catch {
    return { outcome: 'delivered' };
  }
  if (rejected <= 0n) return { outcome: 'delivered' };
  return {
    outcome: 'poison',
    reason: `collector rejected ${rejected} log records${message === '' ? '' : `: ${message}`}`,
    status,
  };
}

/** POSTs each batch to an OTLP/HTTP collector as one protobuf ExportLogsServiceRequest. */
export function otlpSink(options: OtlpSinkOptions): Sink {
  const url = otlpLogsUrl(options.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('OTLP URL must use http: or https:');
  const agent = sinkAgent(url, undefined);
  const headers = { ...options.headers, 'content-type': OTLP_CONTENT_TYPE };
  const resource = { serviceName: options.serviceName, serviceInstanceId: options.serviceInstanceId };
  return {
    name: 'otlp',
    async send(records, signal): Promise<SendResult> {
      const body = exportLogsRequest(records, resource);
      const response = await post(url, agent, headers, body, options.timeoutMs, signal);
      if (typeof response === 'string') return { outcome: 'retry', reason: response };
      const outcome = statusOutcome(response);
      return outcome.outcome === 'delivered' ? partialSuccessOutcome(response.status, response.body) : outcome;
    },
  };
}
