import { STATUS_CODES } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifySchema, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { ROUTES } from '../rbac/table.js';
import type { RouteSpec } from '../rbac/table.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Error statuses the route answers beyond those its shape implies (400 for input, 401, 403,
     * 429 and 503 when authenticated, 404 for path parameters), such as 409 or 422. Documented
     * in /openapi.json only.
     */
    errors?: readonly number[];
  }
}

/** Every authenticated operation accepts any one of the schemes declared in app.ts. */
const AUTHENTICATED: ReadonlyArray<Record<string, string[]>> = [{ apiKey: [] }, { bearer: [] }, { basic: [] }];

const RETRY_AFTER = { 'Retry-After': Type.Integer({ description: 'seconds to wait before retrying' }) };
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function describe(status: number, bodyLimit: number): string {
  switch (status) {
    case 400:
      return 'bad input: `detail` says what is allowed, `errors` names each field';
    case 401:
      return 'no credentials, or credentials that are not valid; `WWW-Authenticate` names the accepted schemes';
    case 403:
      return (
        "the caller's role lacks the permission in `x-permission`, " +
        "or the control plane's service account lacks a Kubernetes one"
      );
    case 404:
      return 'no such resource';
    case 409:
      return 'it exists already, or it changed while the request was served; `detail` says which';
    case 413:
      return `the body is larger than ${bodyLimit} bytes`;
    case 415:
      return 'the body is not `application/json`';
    case 422:
      return 'Kubernetes refused the object as invalid; `detail` gives the causes';
    case 429:
      return (
        'the request budget of this credential, or the failed sign-ins of this address, are spent; ' +
        'retry after `Retry-After` seconds'
      );
    case 503:
      return (
        'Kubernetes is unreachable, failing or too slow, or this replica has not loaded its index yet; ' +
        'retry after `Retry-After` seconds'
      );
    case 504:
      return 'the operation did not finish in time';
    default:
      return STATUS_CODES[status] ?? 'error';
  }
}

function problem(status: number, bodyLimit: number) {
  const retries = status === 429 || status === 503;
  return {
    description: describe(status, bodyLimit),
    ...(retries ? { headers: RETRY_AFTER } : {}),
    content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
  };
}

/** The error statuses a route can answer, from its shape and its config. */
function errorStatuses(route: RouteOptions, method: string): number[] {
  const schema = route.schema ?? {};
  const config = route.config ?? {};
  const hasPathParams = schema.params !== undefined || /[:*]/.test(route.url);
  const takesBody = schema.body !== undefined || BODY_METHODS.has(method);
  const statuses = new Set<number>();
  if (hasPathParams || takesBody || schema.querystring !== undefined) statuses.add(400);
  if (hasPathParams) statuses.add(404);
  if (takesBody) [413, 415].forEach((s) => statuses.add(s));
  if (config.public !== true) {
    // Rate limits, failed sign-in limits and an unreachable cluster apply to every authenticated route.
    [401, 429, 503].forEach((s) => statuses.add(s));
    if (config.permission !== undefined) statuses.add(403);
  }
  for (const status of config.errors ?? []) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new Error(
        `route ${method} ${route.url}: config.errors holds ${status}, which is not an HTTP error status (400-599)`,
      );
    }
    statuses.add(status);
  }
  return [...statuses].sort((a, b) => a - b);
}

/**
 * Documents every route in /openapi.json from what it declares, in one `onRoute` hook: its
 * security requirement, its errors as problem+json (the `Problem` schema createServiceApp adds),
 * and its permission (`x-permission`) and minimum role (`x-minimum-role`, from the route table).
 * Registered before any route so that it sees every one of them.
 */
export default fp(
  async (app) => {
    const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
    const table = new Map<string, RouteSpec>(
      Object.values(ROUTES).map((spec: RouteSpec) => [`${spec.method} ${spec.url}`, spec]),
    );

    app.addHook('onRoute', (route) => {
      const schema: FastifySchema & { hide?: boolean } = route.schema ?? {};
      if (schema.hide === true) return;
      const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
      const config = route.config ?? {};
      const declared = (schema.response ?? {}) as Record<string, unknown>;
      const response: Record<string, unknown> = { ...declared };
      // A route's own description of an error wins over the generic one.
      for (const status of errorStatuses(route, method))
        response[status] ??= problem(status, route.bodyLimit ?? bodyLimit);
      const permission = config.permission;
      const minimumRole = table.get(`${method} ${route.url}`)?.minimumRole;
      route.schema = {
        ...schema,
        // `{}`: the panel's session route answers without credentials too (signed out).
        security: config.public === true ? [] : config.authOptional === true ? [{}, ...AUTHENTICATED] : AUTHENTICATED,
        // Left out when empty: without it, Swagger documents a default 200 rather than nothing.
        ...(Object.keys(response).length === 0 ? {} : { response }),
        ...(permission === undefined
          ? {}
          : { 'x-permission': { resource: permission.resource, verb: permission.verb } }),
        ...(minimumRole === undefined ? {} : { 'x-minimum-role': minimumRole }),
      };
    });
  },
  { name: 'openapi' },
);
