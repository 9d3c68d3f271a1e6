import { createHash } from 'node:crypto';
import { CLUSTER_ID_MAX_LENGTH, hasControlCharacters, ORG_MAX_LENGTH } from '@gsp/platform-contract';
import type { DetailedEvaluation } from '@gsp/flags-client';
import type { EvaluationErrorCode, EvaluationSuccess, OfrepReason } from './schemas.js';

/** The context attributes our flags use; OFREP allows any others, and we ignore them. */
export interface OfrepContext {
  org?: string;
  clusterId?: string;
}

/** An evaluation request OFREP answers with an error body rather than a value. */
export class OfrepRequestError extends Error {
  constructor(
    readonly status: 400,
    readonly errorCode: EvaluationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'OfrepRequestError';
  }
}

const invalid = (message: string) => new OfrepRequestError(400, 'INVALID_CONTEXT', message);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(context: Record<string, unknown>, name: string, maxLength: number): string | undefined {
  const value = context[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength)
    throw invalid(`context.${name} must be a string of 1 to ${maxLength} characters`);
  // These name tenants, clusters and users: PostgreSQL refuses a NUL, and none holds a control character.
  if (hasControlCharacters(value)) throw invalid(`context.${name} must not contain control characters`);
  return value;
}

/** The `context` of an evaluation request; no body, or no `context`, is the empty context. */
export function requestContext(body: unknown): unknown {
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw new OfrepRequestError(400, 'PARSE_ERROR', 'the request body must be a JSON object');
  return body.context ?? {};
}

/**
 * Reads `{ targetingKey?, org?, clusterId?, ... }`; other attributes are allowed and ignored.
 *
 * `targetingKey` is accepted but never required: none of our flags targets by key, so
 * TARGETING_KEY_MISSING is never an answer here.
 */
export function parseContext(context: unknown): OfrepContext {
  if (!isPlainObject(context)) throw invalid('context must be an object');
  if (context.targetingKey !== undefined && typeof context.targetingKey !== 'string')
    throw invalid('context.targetingKey must be a string');
  if (typeof context.targetingKey === 'string' && hasControlCharacters(context.targetingKey)) {
    throw invalid('context.targetingKey must not contain control characters');
  }
  const org = optionalString(context, 'org', ORG_MAX_LENGTH);
  const clusterId = optionalString(context, 'clusterId', CLUSTER_ID_MAX_LENGTH);
  if (clusterId !== undefined && org === undefined)
    throw invalid('context.clusterId requires context.org, the tenant the cluster belongs to');
  const out: OfrepContext = {};
  if (org !== undefined) out.org = org;
  if (clusterId !== undefined) out.clusterId = clusterId;
  return out;
}

const REASONS: Readonly<Record<DetailedEvaluation['source'], OfrepReason>> = {
  // A value no rule targets: OFREP's enum has no DEFAULT, and STATIC is "no dynamic evaluation".
  env: 'STATIC',
  default: 'STATIC',
  platform: 'STATIC',
  cluster: 'TARGETING_MATCH',
};

export function toEvaluationSuccess(
  key: string,
  evaluation: Pick<DetailedEvaluation, 'value' | 'source' | 'envPinned' | 'stale'>,
): EvaluationSuccess {
  return {
    key,
    value: evaluation.value,
    reason: REASONS[evaluation.source],
    variant: evaluation.value ? 'on' : 'off',
    metadata: { source: evaluation.source, envPinned: evaluation.envPinned, stale: evaluation.stale },
  };
}

/** A strong validator of the exact representation (RFC 9110 §8.8.3). */
export function strongEtag(representation: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(representation)).digest('base64url')}"`;
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` is ignored, `*` matches. */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === opaque;
  });
}
