import { Type } from 'typebox';
import type { Static } from 'typebox';
import { CLUSTER_ID_MAX_LENGTH, ORG_MAX_LENGTH } from '@gsp/platform-contract';

// Shapes from the OFREP specification (open-feature/protocol, service/openapi.yaml) and its
// event-stream addition (ADR-0008, service/event-streams.yaml), narrowed to what we serve:
// boolean flags, always with an explicit value (never the "use your code default" form).

/** The OFREP reason enum; OpenFeature's DEFAULT, CACHED and ERROR are not OFREP wire values. */
export const OfrepReason = Type.Union([
  Type.Literal('STATIC'),
  Type.Literal('TARGETING_MATCH'),
  Type.Literal('SPLIT'),
  Type.Literal('DISABLED'),
  Type.Literal('UNKNOWN'),
]);
export type OfrepReason = Static<typeof OfrepReason>;

export const EvaluationMetadata = Type.Object(
  {
    source: Type.Union(
      [Type.Literal('env'), Type.Literal('cluster'), Type.Literal('platform'), Type.Literal('default')],
      { description: 'which rule decided: env pin, cluster override, platform default or the built-in default' },
    ),
    envPinned: Type.Boolean({ description: 'the flag is pinned by the server environment; writes are inert' }),
    stale: Type.Boolean({ description: 'the flag store could not be read; this is the last value seen' }),
  },
  { description: 'OFREP `metadata`: primitive values only' },
);

export const EvaluationSuccess = Type.Object({
  key: Type.String(),
  value: Type.Boolean({ description: 'always present: the effective value, never left to the caller’s code default' }),
  reason: OfrepReason,
  variant: Type.Union([Type.Literal('on'), Type.Literal('off')]),
  metadata: EvaluationMetadata,
});
export type EvaluationSuccess = Static<typeof EvaluationSuccess>;

export const EvaluationErrorCode = Type.Union([
  Type.Literal('PARSE_ERROR'),
  Type.Literal('TARGETING_KEY_MISSING'),
  Type.Literal('INVALID_CONTEXT'),
  Type.Literal('GENERAL'),
]);
export type EvaluationErrorCode = Static<typeof EvaluationErrorCode>;

export const EvaluationFailure = Type.Object({
  key: Type.String(),
  errorCode: EvaluationErrorCode,
  errorDetails: Type.Optional(Type.String()),
});
export type EvaluationFailure = Static<typeof EvaluationFailure>;

export const FlagNotFound = Type.Object({
  key: Type.String(),
  errorCode: Type.Literal('FLAG_NOT_FOUND'),
  errorDetails: Type.Optional(Type.String()),
});

export const BulkEvaluationFailure = Type.Object({
  errorCode: Type.String(),
  errorDetails: Type.Optional(Type.String()),
});

export const GeneralErrorResponse = Type.Object({ errorDetails: Type.Optional(Type.String()) });

/** ADR-0008 `eventStream`, in its `url` form. */
export const EventStream = Type.Object({
  type: Type.Literal('sse'),
  url: Type.String({
    format: 'uri',
    description: 'GET it with the same bearer token; it carries no credential of its own',
  }),
});

export const BulkEvaluationSuccess = Type.Object({
  flags: Type.Array(
    Type.Union([
      EvaluationSuccess,
      Type.Object({ key: Type.String(), errorCode: Type.String(), errorDetails: Type.Optional(Type.String()) }),
    ]),
  ),
  eventStreams: Type.Array(EventStream),
});
export type BulkEvaluationSuccess = Static<typeof BulkEvaluationSuccess>;

/** The `data` of an SSE message (ADR-0008 `sseEventData`). */
export interface SseEventData {
  type: 'refetchEvaluation';
}

const noBody = (description: string) => Type.Null({ description });

/** Not in OFREP's list, which has no status for a store that cannot answer; `Retry-After` says when to try again. */
const Unavailable = Type.Object(
  { errorDetails: Type.Optional(Type.String()) },
  { description: 'the database is unavailable or too slow; retry after Retry-After seconds' },
);

/** Not an OFREP status either; OFREP's general error shape. */
const TooLarge = Type.Object(
  { errorDetails: Type.Optional(Type.String()) },
  { description: 'the body is larger than 16 KiB; a smaller context can succeed' },
);

export const SingleResponses = {
  200: EvaluationSuccess,
  400: EvaluationFailure,
  401: noBody('no or an invalid bearer token; no body'),
  403: noBody('the context names a tenant the caller has no role in; no body'),
  404: FlagNotFound,
  413: TooLarge,
  500: GeneralErrorResponse,
  503: Unavailable,
};

export const BulkResponses = {
  200: BulkEvaluationSuccess,
  304: noBody('If-None-Match matched the current ETag; no body'),
  400: BulkEvaluationFailure,
  401: SingleResponses[401],
  403: SingleResponses[403],
  413: TooLarge,
  500: GeneralErrorResponse,
  503: Unavailable,
};

export const EventStreamResponses = {
  200: {
    description: 'Server-Sent Events: `refetchEvaluation` messages and heartbeat comments',
    content: { 'text/event-stream': { schema: Type.String() } },
  },
  400: BulkEvaluationFailure,
  401: SingleResponses[401],
  403: SingleResponses[403],
  500: GeneralErrorResponse,
  503: Unavailable,
};

export const EventStreamQuery = Type.Object({
  org: Type.Optional(Type.String({ minLength: 1, maxLength: ORG_MAX_LENGTH })),
  clusterId: Type.Optional(Type.String({ minLength: 1, maxLength: CLUSTER_ID_MAX_LENGTH })),
});
