import { randomUUID } from 'node:crypto';
import { ErrorCode, NOOP_PROVIDER, OpenFeature } from '@openfeature/server-sdk';
import type { Client, EvaluationContext } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { FlagsClientError } from './errors.js';
import type { Logger } from '@gsp/service-kit';
import type { Evaluation, EvaluationContext as FlagContext } from './evaluation.js';

export interface OfrepResolverOptions {
  /** Base URL of the OFREP service (`OFREP_URL`); the provider appends `/ofrep/v1/...`. */
  url: string;
  /** Sent with every request, e.g. `{ authorization: 'Bearer ...' }`. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Called before every request, for credentials that rotate; merged after `headers`. */
  headersFactory?: (() => Record<string, string> | Promise<Record<string, string>>) | undefined;
  /** How long one evaluation request may take before the caller's default is served. Default 2000 ms. */
  timeoutMs?: number | undefined;
  logger?: Logger | undefined;
}

/** Context attributes; `undefined` values are dropped. */
export type OfrepContext = Readonly<Record<string, string | number | boolean | undefined>>;

export interface OfrepResolution<T> {
  /** The service's value; when `errorCode` is set, the `defaultValue` the caller passed. */
  value: T;
  reason: string | undefined;
  variant: string | undefined;
  /** An OpenFeature error code (`GENERAL`, `PARSE_ERROR`, `INVALID_CONTEXT`, `TYPE_MISMATCH`, ...). */
  errorCode: string | undefined;
  errorMessage: string | undefined;
  flagMetadata: Readonly<Record<string, string | number | boolean>>;
}

export interface OfrepResolver {
  /**
   * Evaluates a boolean flag remotely. Resolves `undefined` when the service does not know the
   * key (`FLAG_NOT_FOUND`), so the caller applies its own default; any other failure (network,
   * timeout, 5xx, wrong type) resolves with `errorCode` set and `value` = `defaultValue`.
   * Never rejects, except after `close()`.
   */
  resolveBoolean(
    key: string,
    context?: OfrepContext,
    defaultValue?: boolean,
  ): Promise<OfrepResolution<boolean> | undefined>;
  /** Unbinds this resolver's provider; later calls reject with `ERR_FLAGS_CLOSED`. */
  close(): Promise<void>;
}

function checkOptions(options: OfrepResolverOptions): { baseUrl: string; timeoutMs: number } {
  if (!options || typeof options.url !== 'string')
    throw new FlagsClientError('ERR_FLAGS_OPTIONS', 'options.url must be a string');
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new FlagsClientError(
      'ERR_FLAGS_OPTIONS',
      `options.url must be an absolute URL, got ${JSON.stringify(options.url)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FlagsClientError('ERR_FLAGS_OPTIONS', `options.url must use http: or https:, got ${url.protocol}`);
  if (url.search || url.hash)
    throw new FlagsClientError('ERR_FLAGS_OPTIONS', 'options.url must not have a query or fragment');
  const timeoutMs = options.timeoutMs ?? 2000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new FlagsClientError('ERR_FLAGS_OPTIONS', `options.timeoutMs must be a finite number > 0, got ${timeoutMs}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (typeof value !== 'string')
      throw new FlagsClientError('ERR_FLAGS_OPTIONS', `options.headers.${name} must be a string`);
  }
  if (options.headersFactory !== undefined && typeof options.headersFactory !== 'function')
    throw new FlagsClientError('ERR_FLAGS_OPTIONS', 'options.headersFactory must be a function');
  // The provider appends "/ofrep/v1/..." to the base as given.
  return { baseUrl: url.href.replace(/\/+$/, ''), timeoutMs };
}

function toEvaluationContext(context: OfrepContext): EvaluationContext {
  const out: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(context)) if (value !== undefined) out[name] = value;
  return out;
}

/**
 * Resolves flags that live outside our registry through an OpenFeature OFREP provider, with the
 * real `@openfeature/server-sdk` client semantics (hooks, error codes, type checks).
 *
 * Each resolver binds its provider to a domain of its own, so two resolvers (or other users of
 * the global OpenFeature API in this process) never see each other's provider.
 */
export function createOfrepResolver(options: OfrepResolverOptions): OfrepResolver {
  const { baseUrl, timeoutMs } = checkOptions(options);
  const log = options.logger;
  const provider = new OFREPProvider({
    baseUrl,
    headers: { ...options.headers },
    headersFactory: options.headersFactory,
    // A request that hangs must not hold the caller: abort it and let the SDK serve the default.
    fetchImplementation: (input: string | URL | Request, init?: RequestInit) =>
      fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
  });
  const domain = `gsp-ofrep-${randomUUID()}`;
  OpenFeature.setProvider(domain, provider);
  const client: Client = OpenFeature.getClient(domain);
  client.setLogger({
    error: (...args: unknown[]) => log?.warn({ detail: args.map(String).join(' ') }, 'OFREP evaluation failed'),
    warn: (...args: unknown[]) => log?.warn({ detail: args.map(String).join(' ') }, 'OFREP provider warning'),
    info: () => {},
    debug: () => {},
  });
  let closed = false;

  return {
    async resolveBoolean(key, context = {}, defaultValue = false) {
      if (closed) throw new FlagsClientError('ERR_FLAGS_CLOSED', 'the OFREP resolver is closed');
      const details = await client.getBooleanDetails(key, defaultValue, toEvaluationContext(context));
      if (details.errorCode === ErrorCode.FLAG_NOT_FOUND) return undefined;
      return {
        value: details.value,
        reason: details.reason,
        variant: details.variant,
        errorCode: details.errorCode,
        errorMessage: details.errorMessage,
        flagMetadata: details.flagMetadata,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      // Rebinding the domain lets the SDK shut the OFREP provider down; nothing else used it.
      await OpenFeature.setProviderAndWait(domain, NOOP_PROVIDER);
    },
  };
}

/**
 * A flag outside the registry, answered by the OFREP service. A provider failure serves the
 * caller's default (false) and says so, like a stale store read.
 */
export async function evaluateRemotely(remote: OfrepResolver, key: string, context: FlagContext): Promise<Evaluation> {
  const resolution = await remote.resolveBoolean(key, { org: context.org, clusterId: context.clusterId }, false);
  if (!resolution)
    throw new FlagsClientError(
      'ERR_FLAG_UNKNOWN',
      `unknown flag ${JSON.stringify(key)} (neither in the registry nor known to the OFREP provider)`,
    );
  return { value: resolution.value, source: 'provider', envPinned: false, stale: resolution.errorCode !== undefined };
}
