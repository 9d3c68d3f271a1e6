import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forwardedPrefix, proxyTrust } from '@gsp/service-kit';
import type { ProxyTrust } from '@gsp/service-kit';
import { actorOf } from '../auth/actor.js';
import { ifNoneMatchMatches, parseContext, requestContext, strongEtag } from './evaluation.js';
import type { OfrepContext } from './evaluation.js';
import { EventStream } from './event-stream.js';
import { answerOfrepError, answerOfrepNotFound } from './error-handler.js';
import { OfrepService } from './service.js';
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

const tags = ['ofrep'];
const single = {
  tags,
  summary: 'OFREP single flag evaluation',
  description:
    'Context `{ targetingKey?, org?, clusterId? }`; other attributes are ignored. ' +
    '`clusterId` requires `org` and a role in that tenant.',
  response: SingleResponses,
};

/**
 * The event stream's URL as the client reached us: a trusted proxy's scheme, host (Fastify reads
 * them) and the path prefix it stripped, so the URL works from the client's side of the proxy.
 */
function eventStreamUrl(request: FastifyRequest, context: OfrepContext, trustsProxy: ProxyTrust): string {
  const prefix = trustsProxy(request.socket.remoteAddress)
    ? forwardedPrefix(request.headers['x-forwarded-prefix'])
    : '';
  const stream = new URL(`${request.protocol}://${request.host}${prefix}${OFREP_PREFIX}${EVENTS_PATH}`);
  if (context.org !== undefined) stream.searchParams.set('org', context.org);
  if (context.clusterId !== undefined) stream.searchParams.set('clusterId', context.clusterId);
  return stream.href;
}

/** One flag's evaluation, or OFREP's FLAG_NOT_FOUND when no flag has that key. */
async function evaluateOne(ofrep: OfrepService, request: FastifyRequest, reply: FastifyReply, key: string) {
  const evaluation = await ofrep.single(actorOf(request), key, request.body);
  return (
    evaluation ?? reply.code(404).send({ key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag ${key} is not defined` })
  );
}

/** The body with its strong ETag, or a 304 without one when If-None-Match matches it. */
function withEtag(request: FastifyRequest, reply: FastifyReply, body: BulkEvaluationSuccess) {
  const etag = strongEtag(body);
  reply.header('etag', etag);
  if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
  return body;
}

/**
 * The OpenFeature Remote Evaluation Protocol over our flag registry: single and bulk evaluation,
 * and the ADR-0008 event stream that tells OFREP clients to re-fetch within milliseconds of a
 * committed write.
 *
 * Error bodies follow the OFREP specification, not problem+json: this context has its own error
 * and not-found handlers, and 401/403 carry no body.
 */
const routes: FastifyPluginAsyncTypebox<OfrepRoutesOptions> = async (app, opts) => {
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const trustsProxy = proxyTrust(opts.trustProxy ?? false);
  const ofrep = new OfrepService(app.pg, app.flagsClient, opts.platformId);
  const streams = new Set<EventStream>();
  app.setErrorHandler(answerOfrepError);
  app.setNotFoundHandler(answerOfrepNotFound);

  app.route({
    method: 'POST',
    url: '/evaluate/flags/:key',
    schema: { ...single, params: Type.Object({ key: Type.String({ description: 'the flag key' }) }) },
    handler: (request, reply) => evaluateOne(ofrep, request, reply, request.params.key),
  });
  // The provider does not encode keys: one with a "/" still gets FLAG_NOT_FOUND, not a bare 404.
  // (No params schema: TypeBox would read a property named "*" as a pattern.)
  app.route({
    method: 'POST',
    url: '/evaluate/flags/*',
    schema: { ...single, hide: true },
    handler: (request, reply) => evaluateOne(ofrep, request, reply, (request.params as { '*': string })['*']),
  });

  app.route({
    method: 'POST',
    url: '/evaluate/flags',
    schema: {
      tags,
      summary: 'OFREP bulk evaluation of every flag',
      description:
        'Answers 304 without a body when `If-None-Match` matches the `ETag`. ' +
        '`eventStreams` names an SSE stream (OFREP ADR-0008) that sends `refetchEvaluation` ' +
        'when a committed write may have changed a value. ' +
        'The `flagConfigEtag` and `flagConfigLastModified` query parameters are accepted and ignored: ' +
        'every evaluation is current.',
      response: BulkResponses,
    },
    handler: async (request, reply) => {
      const context = parseContext(requestContext(request.body));
      const flags = await ofrep.bulk(actorOf(request), context, request);
      const url = eventStreamUrl(request, context, trustsProxy);
      return withEtag(request, reply, { flags, eventStreams: [{ type: 'sse', url }] });
    },
  });

  app.route({
    method: 'GET',
    url: EVENTS_PATH,
    schema: {
      tags,
      summary: 'OFREP event stream (Server-Sent Events, ADR-0008)',
      description:
        'Advertised in `eventStreams` of the bulk evaluation; authenticated with the same bearer token. ' +
        'Sends `data: {"type":"refetchEvaluation"}` when a committed write may have changed a value ' +
        'for this context, and a comment line as heartbeat.',
      querystring: EventStreamQuery,
      response: EventStreamResponses,
    },
    handler: async (request, reply) => {
      const context = parseContext(request.query);
      await ofrep.checkAccess(actorOf(request), context);
      reply.hijack();
      const stream = new EventStream(reply.raw, { heartbeatMs, headers: { 'x-request-id': request.id } });
      streams.add(stream);
      const unwatch = ofrep.watch(context, () => stream.send({ type: 'refetchEvaluation' }));
      stream.onClose(() => {
        streams.delete(stream);
        unwatch();
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
