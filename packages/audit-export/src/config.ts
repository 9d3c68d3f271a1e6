import { ConfigError, durationVar, integerVar, nonEmpty, parseUrl, readFileVar, readSecret } from '@gsp/service-kit';
import type { BackoffOptions } from './backoff.js';
import { otlpSink } from './otlp.js';
import type { Sink } from './sink.js';
import { webhookSink } from './webhook.js';

/** The sinks configured by environment variables (the same names in every service). */
export interface AuditExportConfig {
  webhook?: { url: string; secret?: string; token?: string; ca?: string };
  otlp?: { url: string; headers?: Record<string, string> };
  /** AUDIT_EXPORT_TIMEOUT, default 10s. */
  timeoutMs: number;
  /** AUDIT_EXPORT_BATCH_MAX, default 400 (as the Kubernetes audit webhook). */
  batchMax: number;
  /** AUDIT_EXPORT_BACKOFF_BASE (200ms) and AUDIT_EXPORT_BACKOFF_MAX (30s). */
  backoff: BackoffOptions;
}

export const AUDIT_EXPORT_DEFAULTS = {
  timeoutMs: 10_000,
  batchMax: 400,
  backoffBaseMs: 200,
  backoffMaxMs: 30_000,
} as const;

/** An HTTP header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the sink sets itself; configuring them would break the request. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'transfer-encoding', 'connection']);

/**
 * AUDIT_OTLP_HEADERS as OTEL_EXPORTER_OTLP_HEADERS has it: `key=value,key=value`, values
 * percent-decoded. Anything malformed is refused, not skipped: a missing API-key header would
 * only show up as a collector's 401 later.
 */
export function parseOtlpHeaders(raw: string, name = 'AUDIT_OTLP_HEADERS'): Record<string, string> {
  const headers = new Map<string, string>();
  for (const entry of raw.split(',')) {
    const eq = entry.indexOf('=');
    const key = (eq < 0 ? entry : entry.slice(0, eq)).trim().toLowerCase();
    if (eq < 0 || !TOKEN.test(key))
      throw new ConfigError(name, 'must be key=value pairs separated by commas, each key a header name');
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      throw new ConfigError(name, `the value of ${key} is not valid percent-encoding`);
    }
    // A header value may hold visible characters, spaces and tabs; never line breaks or NUL.
    if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(value))
      throw new ConfigError(name, `the value of ${key} has characters a header cannot carry`);
    if (RESERVED_HEADERS.has(key)) throw new ConfigError(name, `${key} is set by the sink and cannot be configured`);
    if (headers.has(key)) throw new ConfigError(name, `${key} is given twice`);
    headers.set(key, value);
  }
  return Object.fromEntries(headers);
}

/** Names the variable that needs the sink's URL, when a sink's option is set without it. */
function requireUrl(
  env: NodeJS.ProcessEnv,
  url: string | undefined,
  urlName: string,
  options: readonly string[],
): void {
  if (url !== undefined) return;
  for (const option of options)
    if (nonEmpty(env, option) !== undefined) throw new ConfigError(option, `is set but ${urlName} is not`);
}

/** Reads the AUDIT_* variables (see the README's configuration table); throws ConfigError on bad values. */
export function auditExportConfig(env: NodeJS.ProcessEnv): AuditExportConfig {
  const webhookUrl = parseUrl(env, 'AUDIT_WEBHOOK_URL', ['https:', 'http:']);
  requireUrl(env, webhookUrl, 'AUDIT_WEBHOOK_URL', [
    'AUDIT_WEBHOOK_SECRET',
    'AUDIT_WEBHOOK_SECRET_FILE',
    'AUDIT_WEBHOOK_TOKEN',
    'AUDIT_WEBHOOK_TOKEN_FILE',
    'AUDIT_WEBHOOK_CA_FILE',
  ]);
  const otlpUrl = parseUrl(env, 'AUDIT_OTLP_URL', ['https:', 'http:']);
  requireUrl(env, otlpUrl, 'AUDIT_OTLP_URL', ['AUDIT_OTLP_HEADERS', 'AUDIT_OTLP_HEADERS_FILE']);

  const config: AuditExportConfig = {
    timeoutMs: durationVar(env, 'AUDIT_EXPORT_TIMEOUT', AUDIT_EXPORT_DEFAULTS.timeoutMs),
    batchMax: integerVar(env, 'AUDIT_EXPORT_BATCH_MAX', AUDIT_EXPORT_DEFAULTS.batchMax, { min: 1, max: 10_000 }),
    backoff: {
      baseMs: durationVar(env, 'AUDIT_EXPORT_BACKOFF_BASE', AUDIT_EXPORT_DEFAULTS.backoffBaseMs),
      maxMs: durationVar(env, 'AUDIT_EXPORT_BACKOFF_MAX', AUDIT_EXPORT_DEFAULTS.backoffMaxMs),
    },
  };
  if (config.backoff.maxMs < config.backoff.baseMs)
    throw new ConfigError('AUDIT_EXPORT_BACKOFF_MAX', 'must be at least AUDIT_EXPORT_BACKOFF_BASE');

  if (webhookUrl !== undefined) {
    const secret = readSecret(env, 'AUDIT_WEBHOOK_SECRET');
    const token = readSecret(env, 'AUDIT_WEBHOOK_TOKEN');
    const ca = readFileVar(env, 'AUDIT_WEBHOOK_CA_FILE');
    if (token !== undefined && !/^[\x21-\x7e]+$/.test(token))
      throw new ConfigError(
        'AUDIT_WEBHOOK_TOKEN',
        'must be printable ASCII with no spaces (it is sent as a bearer token)',
      );
    if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----'))
      throw new ConfigError('AUDIT_WEBHOOK_CA_FILE', 'must name a PEM file of certificates');
    config.webhook = {
      url: webhookUrl,
      ...(secret !== undefined ? { secret } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(ca !== undefined ? { ca } : {}),
    };
  }
  if (otlpUrl !== undefined) {
    // Headers often carry the collector's API key: they may come from a mounted Secret too.
    const raw = readSecret(env, 'AUDIT_OTLP_HEADERS');
    config.otlp = { url: otlpUrl, ...(raw !== undefined ? { headers: parseOtlpHeaders(raw) } : {}) };
  }
  return config;
}

/** Builds the configured sinks. `source`/`serviceName`/`serviceInstanceId` name the service and replica. */
export function createSinks(config: AuditExportConfig, who: { service: string; replica: string }): Sink[] {
  const sinks: Sink[] = [];
  if (config.webhook)
    sinks.push(
      webhookSink({
        ...config.webhook,
        source: `/gsp/${encodeURIComponent(who.service)}/${encodeURIComponent(who.replica)}`,
        timeoutMs: config.timeoutMs,
      }),
    );
  if (config.otlp)
    sinks.push(
      otlpSink({
        url: config.otlp.url,
        serviceName: `gsp-${who.service}`,
        serviceInstanceId: who.replica,
        ...(config.otlp.headers ? { headers: config.otlp.headers } : {}),
        timeoutMs: config.timeoutMs,
      }),
    );
  return sinks;
}
