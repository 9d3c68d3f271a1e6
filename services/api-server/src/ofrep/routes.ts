import { FLAGS, findFlag } from '@gsp/flags-client';
import type { FlagChange } from '@gsp/flags-client';
import { Type } from 'typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { describeValidation, forwardedPrefix, proxyTrust } from '@gsp/service-kit';
import { Forbidden } from '../errors.js';
import { authorize, platformResource, readBindings, tenantResource } from '@gsp/platform-contract';
import { actorOf } from '../plugins/auth.js';
import { findCluster } from '../clusters/store.js';
import {
  ifNoneMatchMatches,
  OfrepRequestError,
  parseContext,
  requestContext,
  strongEtag,
  toEvaluationSuccess,
} from './evaluation.js';
import type { OfrepContext } from './evaluation.js';
import { EventStream } from './event-stream.js';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../db/availability.js';
import { BulkResponses, EventStreamQuery, EventStreamResponses, SingleResponses } from './schemas.js';
import type { BulkEvaluationSuccess } from './schemas.js';

export interface OfrepRoutesOptions {
  platformId: string;
  /** Interval of the SSE heartbeat comments. Default 15 000 ms. */
  heartbeatMs?: number;
  /** `TRUST_PROXY`: a trusted proxy's `X-Forwarded-Prefix` is kept in the advertised stream URL. */
  trustProxy?: boolean | string;
}

export const OFREP_PREFIX = '/ofrep/v1';
const EVENTS_PATH = '/events';

/**
 * The OpenFeature Remote Evaluation Protocol over our flag registry, read through the same cached
 * flags client as everything else: single and bulk evaluation, and the ADR-0008 event stream that
 * tells OFREP clients to re-fetch within milliseconds of a committed write.
 *
 * Error bodies follow the OFREP specification, not problem+json: this context has its own error
 * and not-found handlers, and 401/403 carry no body.
 */
const routes: FastifyPluginAsyncTypebox<OfrepRoutesOptions> = async (app, opts) => {
  const { platformId } = opts;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const trustsProxy = proxyTrust(opts.trustProxy ?? false);
  const tags = ['ofrep'];
  const streams = new Set<EventStream>();

  app.setErrorHandler((error: FastifyError | OfrepRequestError, request, reply) => {
    const params = request.params as { key?: string; '*'?: string } | undefined;
    const key = params?.key ?? params?.['*'];
    const failure = (errorCode: string, errorDetails: string) =>
      reply.code(400).send(key === undefined ? { errorCode, errorDetails } : { key, errorCode, errorDetails });
    if (error instanceof OfrepRequestError) return failure(error.errorCode, error.message);
    const status = error.statusCode ?? 500;
    // The spec gives these no body; the WWW-Authenticate header set by the auth hook stays.
    if (status === 401 || status === 403) return reply.code(status).send();
    // Too large is not malformed: a client that shrinks the context can succeed, so it hears 413.
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply.code(413).send({
        errorDetails: `the request body is larger than ${request.routeOptions.bodyLimit} bytes, the most this service accepts`,
      });
    if (error.code?.startsWith('FST_ERR_CTP_')) return failure('PARSE_ERROR', error.message);
    if (error.validation) {
      const fields = describeValidation(error.validation, error.validationContext);
      return failure('INVALID_CONTEXT', fields.length > 0 ? fields.map((f) => f.detail).join('; ') : error.message);
    }
    if (status < 500) return failure('GENERAL', error.message);
    if (isDatabaseUnavailable(error)) {
      // OFREP's general error shape; the status and Retry-After say it is worth retrying.
      request.log.warn({ err: { message: error.message } }, 'OFREP request failed: database unavailable');
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return reply.code(503).send({ errorDetails: DATABASE_UNAVAILABLE });
    }
    request.log.error({ err: error }, 'OFREP request failed');
    return reply.code(500).send({
      errorDetails: `The server could not evaluate the request; quote request id ${request.id} when reporting it.`,
    });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ errorDetails: `No route ${request.method} ${request.url.split('?')[0]}` }),
  );

  /** A context naming a tenant needs a role in it; one naming a cluster needs that cluster to exist there. */
  const checkAccess = async (request: FastifyRequest, context: OfrepContext): Promise<void> => {
    if (context.org === undefined) return;
    const rows = await readBindings(app.pg, actorOf(request), [
      platformResource(platformId),
      tenantResource(context.org),
    ]);
    // Every tenant role may read; so may a platform admin.
    if (!authorize(rows, platformId, 'tenant.read', context.org))
      throw new Forbidden(`no role in tenant ${context.org}`);
    if (context.clusterId !== undefined && !(await findCluster(app.pg, context.org, context.clusterId))) {
      throw new OfrepRequestError(
        400,
        'INVALID_CONTEXT',
        `cluster ${context.clusterId} does not exist in tenant ${context.org}`,
      );
    }
  };

  const evaluate = async (key: string, context: OfrepContext) =>
    toEvaluationSuccess(key, await app.flagsClient.evaluateDetailed(key, context));

  const evaluateOne = async (request: FastifyRequest, reply: FastifyReply, key: string) => {
    const raw = requestContext(request.body);
    if (!findFlag(key))
      return reply.code(404).send({ key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag ${key} is not defined` });
    const context = parseContext(raw);
    await checkAccess(request, context);
    return evaluate(key, context);
  };
  const single = {
    tags,
    summary: 'OFREP single flag evaluation',
    description:
      'Context `{ targetingKey?, org?, clusterId? }`; other attributes are ignored. `clusterId` requires `org` and a role in that tenant.',
    response: SingleResponses,
  };
  app.route({
    method: 'POST',
    url: '/evaluate/flags/:key',
    schema: { ...single, params: Type.Object({ key: Type.String({ description: 'the flag key' }) }) },
    handler: (request, reply) => evaluateOne(request, reply, request.params.key),
  });
  // The provider does not encode keys: one with a "/" still gets FLAG_NOT_FOUND, not a bare 404.
  // (No params schema: TypeBox would read a property named "*" as a pattern.)
  app.route({
    method: 'POST',
    url: '/evaluate/flags/*',
    schema: { ...single, hide: true },
    handler: (request, reply) => evaluateOne(request, reply, (request.params as { '*': string })['*']),
  });

  app.route({
    method: 'POST',
    url: '/evaluate/flags',
    schema: {
      tags,
      summary: 'OFREP bulk evaluation of every flag',
      description:
        'Answers 304 without a body when `If-None-Match` matches the `ETag`. `eventStreams` names an SSE stream (OFREP ADR-0008) that sends `refetchEvaluation` when a committed write may have changed a value. The `flagConfigEtag` and `flagConfigLastModified` query parameters are accepted and ignored: every evaluation is current.',
      response: BulkResponses,
    },
    handler: async (request, reply) => {
      const context = parseContext(requestContext(request.body));
      await checkAccess(request, context);
      const flags: BulkEvaluationSuccess['flags'] = await Promise.all(
        FLAGS.map(async (flag) => {
          try {
            return await evaluate(flag.key, context);
          } catch (err) {
            request.log.error({ err, flag: flag.key }, 'OFREP bulk evaluation of one flag failed');
            return {
              key: flag.key,
              errorCode: 'GENERAL',
              errorDetails: `quote request id ${request.id} when reporting it`,
            };
          }
        }),
      );
      // Where the client reached us: a trusted proxy's scheme, host (Fastify reads them) and the
      // path prefix it stripped, so the URL works from the client's side of the proxy.
      const prefix = trustsProxy(request.socket.remoteAddress)
        ? forwardedPrefix(request.headers['x-forwarded-prefix'])
        : '';
      const stream = new URL(`${request.protocol}://${request.host}${prefix}${OFREP_PREFIX}${EVENTS_PATH}`);
      if (context.org !== undefined) stream.searchParams.set('org', context.org);
      if (context.clusterId !== undefined) stream.searchParams.set('clusterId', context.clusterId);
      const body: BulkEvaluationSuccess = { flags, eventStreams: [{ type: 'sse', url: stream.href }] };
      const etag = strongEtag(body);
      reply.header('etag', etag);
      if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return body;
    },
  });

  app.route({
    method: 'GET',
    url: EVENTS_PATH,
    schema: {
      tags,
      summary: 'OFREP event stream (Server-Sent Events, ADR-0008)',
      description:
        'Advertised in `eventStreams` of the bulk evaluation; authenticated with the same bearer token. Sends `data: {"type":"refetchEvaluation"}` when a committed write may have changed a value for this context, and a comment line as heartbeat.',
      querystring: EventStreamQuery,
      response: EventStreamResponses,
    },
    handler: async (request, reply) => {
      const context = parseContext(request.query);
      await checkAccess(request, context);
      reply.hijack();
      const stream = new EventStream(reply.raw, { heartbeatMs, headers: { 'x-request-id': request.id } });
      streams.add(stream);
      // One event per turn of the event loop, however many flags one write touched.
      let pending = false;
      const onChange = (change: FlagChange) => {
        if (change.scope.type === 'cluster' && change.scope.clusterId !== context.clusterId) return;
        if (pending) return;
        pending = true;
        setImmediate(() => {
          pending = false;
          stream.send({ type: 'refetchEvaluation' });
        });
      };
      const unsubscribes = FLAGS.map((flag) => app.flagsClient.onChange(flag.key, onChange));
      stream.onClose(() => {
        streams.delete(stream);
        for (const unsubscribe of unsubscribes) unsubscribe();
      });
      // We keep no history to replay from Last-Event-ID; a reconnecting client may have missed a change.
      if (request.headers['last-event-id'] !== undefined) stream.send({ type: 'refetchEvaluation' });
    },
  });

  // Open streams would keep app.close() waiting for ever.
  app.addHook('preClose', async () => {
    await Promise.all([...streams].map((stream) => stream.end()));
  });
};

const ofrepRoutes: FastifyPluginAsyncTypebox<OfrepRoutesOptions> = async (app, opts) => {
  if (typeof opts.platformId !== 'string' || opts.platformId === '')
    throw new Error('ofrep routes: options.platformId must be a non-empty string');
  if (opts.heartbeatMs !== undefined && !(Number.isFinite(opts.heartbeatMs) && opts.heartbeatMs > 0))
    throw new Error('ofrep routes: options.heartbeatMs must be a number > 0');
  await app.register(routes, {
    prefix: OFREP_PREFIX,
    platformId: opts.platformId,
    heartbeatMs: opts.heartbeatMs,
    trustProxy: opts.trustProxy,
  });
};

export default ofrepRoutes;
