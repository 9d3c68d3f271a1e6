import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import Fastify from 'fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, FastifyServerOptions, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { clientErrorHandler, frameworkErrors, maxParamLengthFor } from './framework.js';
import { applyHttpTimeouts } from './http.js';
import { ServiceLogController } from './log-controller.js';
import type { HttpTimeouts } from './http.js';
import { ProblemSchema } from './problems.js';
import { proxyTrust } from './trust-proxy.js';
import { serializeRequest } from './redaction.js';
import { serviceValidatorCompiler, withWellFormedText } from './validator.js';

/** A service's Fastify instance: TypeBox schemas validate and type the routes. */
export type ServiceApp = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface ServiceAppOptions {
  /** The application log; its request serializer is replaced by one that logs no credential (`withRedaction`). */
  logger: FastifyServerOptions['logger'];
  bodyLimit: number;
  http: HttpTimeouts;
  /** The longest identifier a path parameter of this service may hold, in characters (see `maxParamLengthFor`). */
  longestPathIdentifier: number;
  /** Defaults to service-kit's `frameworkErrors` and `clientErrorHandler` (problem+json). */
  frameworkErrors?: FastifyServerOptions['frameworkErrors'];
  clientErrorHandler?: FastifyServerOptions['clientErrorHandler'];
  /** `trustProxyVar`'s value: Fastify asks `proxyTrust` of it whose forwarded headers to believe. */
  trustProxy?: boolean | string;
  pluginTimeout?: number;
}

/**
 * `logger` with service-kit's request serializer, which shows no credential of a URL, in place of
 * any other: every service's request log is cleaned the same way.
 */
export function withRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === false) return logger;
  const options = logger === true ? {} : logger;
  return { ...options, serializers: { ...options.serializers, req: serializeRequest } };
}

/**
 * The boot both HTTP services share: a request id (a UUID, echoed in `x-request-id`), TypeBox
 * validation with well-formed Unicode in every body (`serviceValidatorCompiler`), a body limit,
 * JSON bodies only (anything else is 415), the HTTP timeouts of the service's config,
 * problem+json for what Fastify refuses before any route, and a request log that shows no
 * credential (`withRedaction`). The `Problem` schema is registered for routes to reference.
 */
export function createServiceApp(options: ServiceAppOptions): ServiceApp {
  const app = Fastify({
    logger: withRedaction(options.logger),
    bodyLimit: options.bodyLimit,
    routerOptions: { maxParamLength: maxParamLengthFor(options.longestPathIdentifier) },
    genReqId: () => randomUUID(),
    // A client closing a streamed response is its normal end: not an info line (log-controller.ts).
    logController: new ServiceLogController(),
    frameworkErrors: options.frameworkErrors ?? frameworkErrors,
    clientErrorHandler: options.clientErrorHandler ?? clientErrorHandler,
    ...(options.trustProxy === undefined || options.trustProxy === false
      ? {}
      : { trustProxy: proxyTrust(options.trustProxy) }),
    ...(options.pluginTimeout === undefined ? {} : { pluginTimeout: options.pluginTimeout }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  applyHttpTimeouts(app.server, options.http);
  app.setValidatorCompiler(serviceValidatorCompiler);
  // A route with a validator of its own (the control plane's profiles) keeps the well-formed rule too.
  app.addHook('onRoute', (route) => {
    if (route.validatorCompiler !== undefined) route.validatorCompiler = withWellFormedText(route.validatorCompiler);
  });
  // Only JSON bodies are accepted; anything else is 415 rather than a confusing 400.
  app.removeContentTypeParser('text/plain');
  // Not async: a hook that returns a promise costs every request a promise and a microtask.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  app.addSchema(ProblemSchema);
  return app;
}

type OpenApiDocument = NonNullable<FastifyDynamicSwaggerOptions['openapi']>;

export interface OpenApiOptions {
  title: string;
  description: string;
  securitySchemes: NonNullable<NonNullable<OpenApiDocument['components']>['securitySchemes']>;
  /** The document's default security requirement, if any. */
  security?: OpenApiDocument['security'];
}

/** `/openapi.json`'s generator; shared schemas keep their `$id` as their name (`Problem`, not `def-0`). */
export async function registerOpenApi(app: ServiceApp, options: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: '1.0.0', description: options.description },
      components: { securitySchemes: options.securitySchemes },
      ...(options.security === undefined ? {} : { security: options.security }),
    },
  });
}

/** A route's authorization check, run before its validation. */
export type RouteGuard = (request: FastifyRequest) => Promise<void>;

/**
 * The one `onRoute` hook of a service's authorization: `guardOf` reads what a route requires (its
 * permission, from the route's config) and returns the check, which runs first in preValidation,
 * ahead of the route's own hooks; or throws to refuse a route that may not boot, or returns
 * undefined for a route anyone may call.
 */
export function guardRoutes(app: FastifyInstance, guardOf: (route: RouteOptions) => RouteGuard | undefined): void {
  app.addHook('onRoute', (route) => {
    const check = guardOf(route);
    if (check === undefined) return;
    const existing = route.preValidation;
    route.preValidation =
      existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
  });
}
