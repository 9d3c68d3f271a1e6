// What every service process shares; each service keeps the variables that are its own.
export {
  ConfigError,
  durationVar,
  nonEmpty,
  parseDuration,
  parsePort,
  parseUrl,
  readFileVar,
  readSecret,
} from './config.js';
export type { Env } from './config.js';
export { runService } from './run.js';
export type { RunningService, RunServiceOptions } from './run.js';
export { generateSelfSignedCertificate } from './tls.js';
export type { Certificate } from './tls.js';
export { InvalidRequestError, ProblemSchema, problemBody, problems, sendProblem, writeProblem } from './problems.js';
export type { Problem, ProblemsOptions } from './problems.js';
export { describeValidation } from './validation.js';
export type { FieldError, SchemaIssue } from './validation.js';
export { serveMetrics } from './metrics.js';
export type { MetricsSource } from './metrics.js';
export { LoadingCache } from './cache.js';
export type { CachedValue, LoadingCacheOptions } from './cache.js';
export { applyHttpTimeouts, httpTimeouts } from './http.js';
export type { HttpTimeouts } from './http.js';
export { clientErrorHandler, frameworkErrors } from './framework.js';
export { CLIENT_ERROR_RESPONSES, jsonResponse, PROBLEM, problemResponse } from './openapi.js';
