// Audit records leaving the process: the sinks, delivery with backoff, metrics and configuration.
export type { ExportRecord, SendResult, Sink } from './sink.js';
export {
  CLOUDEVENTS_BATCH_CONTENT_TYPE,
  SIGNATURE_HEADER,
  cloudEventsBatch,
  signatureHeader,
  verifySignature,
  webhookSink,
} from './webhook.js';
export type { WebhookSinkOptions } from './webhook.js';
export {
  OTLP_ATTRIBUTE_PREFIX,
  OTLP_CONTENT_TYPE,
  OTLP_SCOPE,
  exportLogsRequest,
  otlpLogsUrl,
  otlpSink,
} from './otlp.js';
export type { OtlpSinkOptions } from './otlp.js';
export { backoffDelay, deliver, ship } from './backoff.js';
export type { BackoffOptions, DeliverOptions, ShipOptions } from './backoff.js';
export { exportMetrics } from './metrics.js';
export type { Backlog, BacklogSource, ExportMetrics } from './metrics.js';
export { AUDIT_EXPORT_DEFAULTS, auditExportConfig, createSinks, parseOtlpHeaders } from './config.js';
export type { AuditExportConfig } from './config.js';
export { RETRY_AFTER_MAX_MS, retryAfterMs } from './http.js';
// The OTLP logs messages, for receivers and tests that decode what the OTLP sink sends.
export {
  ExportLogsServiceRequestSchema,
  ExportLogsServiceResponseSchema,
} from './gen/opentelemetry/proto/collector/logs/v1/logs_service_pb.js';
export type {
  ExportLogsServiceRequest,
  ExportLogsServiceResponse,
} from './gen/opentelemetry/proto/collector/logs/v1/logs_service_pb.js';
