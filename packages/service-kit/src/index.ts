// What every service process shares; each service keeps the variables that are its own.
// Environment readers: every service's configuration is read with these.
export * from './config.js';
export { forwardedPrefix, FORWARDED_PREFIX_MAX_LENGTH, proxyTrust, trustProxyVar } from './trust-proxy.js';
export type { ProxyTrust } from './trust-proxy.js';
export { runHttpService, runService } from './run.js';
export type { HttpService, HttpServiceConfig, RunningService, RunServiceOptions } from './run.js';
export { generateSelfSignedCertificate } from './tls.js';
export type { Certificate } from './tls.js';
export {
  InvalidRequestError,
  ProblemSchema,
  problemBody,
  problemOf,
  problems,
  sendProblem,
  writeProblem,
} from './problems.js';
export type { Problem, ProblemsOptions } from './problems.js';
export { describeValidation } from './validation.js';
export type { FieldError, SchemaIssue } from './validation.js';
export { createServiceMetrics, DURATION_BUCKETS, RequestMetrics, serveMetrics } from './metrics.js';
export type { DurationLabels, HttpRequestMetricsOptions, MetricsSource, ServiceMetrics } from './metrics.js';
export { LoadingCache } from './cache.js';
export type { CachedValue, LoadingCacheOptions } from './cache.js';
export { applyHttpTimeouts, httpTimeouts } from './http.js';
export type { HttpTimeouts } from './http.js';
export { clientErrorHandler, frameworkErrors, maxParamLengthFor } from './framework.js';
// Pieces of the hand-written OpenAPI documents (the proxy's and the agent's ports).
export * from './openapi.js';
export { TtlCache, singleFlight } from './ttl-cache.js';
export { bearerToken } from './auth.js';
export { waitUntil } from './wait.js';
export {
  CONTROL_CHARACTERS,
  hasControlCharacters,
  hasLoneSurrogate,
  LONE_SURROGATE,
  NO_CONTROL_CHARACTERS_PATTERN,
  WELL_FORMED_RULE,
} from './text.js';
export { createServiceApp, guardRoutes, registerOpenApi, withRedaction } from './boot.js';
export { loneSurrogatePath, serviceValidatorCompiler, withWellFormedText } from './validator.js';
// Credentials kept out of logs and audit records, however a caller encoded them.
export {
  CREDENTIAL_QUERY_PARAMS,
  MIN_SECRET_LENGTH,
  REDACTED,
  redactSecrets,
  redactUrl,
  requestCredentials,
  serializeRequest,
} from './redaction.js';
export type { Secret, SecretPattern } from './redaction.js';
export type { OpenApiOptions, RouteGuard, ServiceApp, ServiceAppOptions } from './boot.js';
export {
  clockToleranceVar,
  createOidcTokenVerifier,
  DEFAULT_CLOCK_TOLERANCE_MS,
  InvalidTokenError,
  invalidTokenReason,
  toleranceSeconds,
} from './oidc.js';
export type { OidcTokenVerifier, OidcVerifierOptions, VerifiedClaims } from './oidc.js';
export { silentLogger } from './logger.js';
export type { ErrorLogger, Logger } from './logger.js';
// The browser products' session cookies (the web console's, the game-server panel's).
export { cookieValue, setCookie } from './cookies.js';
export type { CookieOptions } from './cookies.js';
