import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { bearerToken, cookieValue, guardRoutes, singleFlight } from '@gsp/service-kit';
import type { RouteGuard } from '@gsp/service-kit';
import type { AuthMode, BasicConfig, OidcConfig } from '../config/index.js';
import { createApiKeyVerifier } from '../auth/apikey.js';
import { basicCredentials, createBasicVerifier } from '../auth/basic.js';
import { createOidcVerifier } from '../auth/oidc.js';
import { InvalidCredentialError } from '../auth/principal.js';
import type { Principal } from '../auth/principal.js';
import type { FailureLimiter } from '../auth/failures.js';
import type { AuthFailure } from '../metrics.js';
import { allowedNamespaces, authorize } from '../rbac/roles.js';
import type { Permission, Role, Roles } from '../rbac/roles.js';
import type { Scope } from '../rbac/table.js';
import { BadRequest, Forbidden, TooManyRequests, Unauthorized } from '../errors.js';
import { panelCookieRefusal } from '../panel/csrf.js';
import { CHALLENGES, credentialOf, missingChallenges } from './credentials.js';
import type { CredentialKind } from './credentials.js';
import { PANEL_COOKIE } from '../panel/sessions.js';
import { SESSION_ENDED } from './panel-sessions.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Skip authentication (health probes). */
    public?: boolean;
    /** False: no audit line (health probes). */
    audit?: boolean;
    /** Authenticate a credential when one is present, else go on without a principal (the panel's session route). */
    authOptional?: boolean;
    permission?: Permission;
    scope?: Scope;
  }
  interface FastifyInstance {
    /**
     * Whether the request's principal holds `permission` (in `namespace`, when given): for rules a route table
     * cannot state alone.
     */
    mayDo(request: FastifyRequest, permission: Permission, namespace?: string): boolean;
    /**
     * The principal of a credential of `kind` (as its header would carry it), verified as the
     * chain verifies a header, within the same failed sign-in limit: the panel's sign-in. A 401
     * (without a challenge) or a 429 when it is refused; a 400 when the method is off.
     */
    verifyCredential(
      kind: CredentialKind,
      value: string,
      request: FastifyRequest,
      reply: FastifyReply,
    ): Promise<Principal>;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** For `filtered` routes: the namespaces whose items the caller may see. */
    visibleNamespaces: 'all' | ReadonlySet<string> | null;
  }
}

export interface AuthPluginOptions {
  modes: ReadonlySet<AuthMode>;
  basic: BasicConfig | undefined;
  oidc: OidcConfig | undefined;
  roles: Roles;
  apikeyPrefix: string;
  failures: FailureLimiter;
  /** Told of each request authentication refuses, and why (metrics). */
  refused?: (reason: AuthFailure) => void;
}

const ANONYMOUS: Principal = { userId: 'anonymous', username: 'anonymous', role: 'admin', method: 'none' };

/**
 * An authentication method: `known` finds the principal of a credential proven lately without
 * verifying anything (a current API key, a token or Basic password verified in the last minute,
 * Basic from this address); `verify` does the work, and throws InvalidCredentialError. Each takes
 * its credential as the header has it.
 */
interface Method {
  known(value: string, address: string): Principal | undefined;
  verify(value: string, address: string): Promise<Principal>;
}

/** The methods the configuration turns on, by the kind of credential each checks. */
async function methodsOf(app: FastifyInstance, opts: AuthPluginOptions): Promise<Map<CredentialKind, Method>> {
  const { modes } = opts;
  const methods = new Map<CredentialKind, Method>();
  if (modes.has('apikey')) methods.set('apikey', createApiKeyVerifier(app.apikeys, opts.apikeyPrefix));
  const oidc = modes.has('oidc') && opts.oidc ? createOidcVerifier(opts.oidc, opts.roles) : undefined;
  if (oidc) {
    oidc
      .discover()
      .catch((err: unknown) =>
        app.log.warn(
          { err: { message: (err as Error).message } },
          'OIDC discovery failed; it is retried on the next bearer token',
        ),
      );
    methods.set('bearer', {
      known(header) {
        const token = bearerToken(header);
        return token === undefined ? undefined : oidc.known(token);
      },
      async verify(header) {
        const token = bearerToken(header);
        if (token === undefined) throw new InvalidCredentialError('the bearer token is malformed');
        return oidc.verify(token);
      },
    });
  }
  const basic = modes.has('basic') && opts.basic ? await createBasicVerifier(opts.basic) : undefined;
  if (basic) {
    methods.set('basic', {
      known(header, address) {
        const pair = basicCredentials(header);
        return pair === undefined ? undefined : basic.known(pair.user, pair.password, address);
      },
      async verify(header, address) {
        const pair = basicCredentials(header);
        if (pair === undefined) throw new InvalidCredentialError('the Basic credentials are malformed');
        return basic.verify(pair.user, pair.password, address);
      },
    });
  }
  return methods;
}

/** The `?ticket=` of a GET to a route that takes tickets (`config.tickets`); undefined elsewhere. */
function ticketOf(request: FastifyRequest): string | undefined {
  if (request.method !== 'GET' || request.routeOptions.config.tickets !== true) return undefined;
  const ticket = (request.query as { ticket?: unknown }).ticket;
  return typeof ticket === 'string' ? ticket : undefined;
}

/** The principal of `ticket` for the game server of the request's path; a 401 when it is not good. */
async function redeemTicket(app: FastifyInstance, request: FastifyRequest, ticket: string): Promise<Principal> {
  const { namespace = '', name = '' } = request.params as { namespace?: string; name?: string };
  const principal = await app.terminalTickets.redeem(ticket, { namespace, name });
  if (principal === undefined)
    throw new Unauthorized(
      'the console ticket is not valid: it was used already, has expired or is for another game server',
    );
  return principal;
}

/**
 * The check a route's `config.permission` attaches (preValidation), in its `config.scope`: the
 * caller's role must grant it (in the path's namespace; for `filtered` routes, in some namespace,
 * and the request learns which). Undefined for a public route; an API route without a
 * permission fails the boot rather than open a hole.
 */
function permissionCheck(
  route: RouteOptions,
  roleOf: (principal: Principal) => Role | undefined,
): RouteGuard | undefined {
  const permission = route.config?.permission;
  if (permission === undefined) {
    if (route.config?.public !== true && route.url.startsWith('/api/'))
      throw new Error(`route ${route.method} ${route.url} declares no permission`);
    return undefined;
  }
  const scope = route.config?.scope ?? 'cluster';
  return async (request: FastifyRequest) => {
    const principal = request.principal;
    if (!principal) throw new Unauthorized('authentication is required');
    const role = roleOf(principal);
    const denied = () =>
      new Forbidden(
        principal.role === undefined
          ? 'you are authenticated but have no role'
          : `role ${principal.role} may not ${permission.verb} ${permission.resource}`,
      );
    if (scope === 'filtered') {
      const visible = allowedNamespaces(role, permission);
      if (visible !== 'all' && visible.size === 0) throw denied();
      request.visibleNamespaces = visible;
      return;
    }
    const namespace = scope === 'namespace' ? (request.params as { namespace?: string }).namespace : undefined;
    if (!authorize({ role }, permission, namespace)) throw denied();
  };
}

type Outcome = { principal: Principal } | { blockedFor: number };

/**
 * Verification within the failed sign-in limit of the client's address. Each attempt is reserved
 * against the limit before verifying (atomically, so parallel guesses cannot all pass the check
 * before any is counted), and given back if the credential proves good. Identical concurrent
 * attempts from one address share one reservation and one verification, so a client's burst of
 * parallel requests on a cold cache is not refused by its own limit.
 */
function limitedVerification(
  failures: FailureLimiter,
): (kind: CredentialKind, method: Method, value: string, address: string) => Promise<Outcome> {
  async function attempt(method: Method, value: string, address: string): Promise<Outcome> {
    const reservation = await failures.reserve(address);
    if (reservation.blockedFor > 0) return { blockedFor: reservation.blockedFor };
    try {
      const principal = await method.verify(value, address);
      reservation.release();
      return { principal };
    } catch (err) {
      // Only a rejected credential counts as a failure, not an error of ours.
      if (!(err instanceof InvalidCredentialError)) reservation.release();
      throw err;
    }
  }
  const once = singleFlight<string, Outcome>();
  return (kind, method, value, address) => {
    const id = createHash('sha256').update(`${address}\n${kind}\n${value}`).digest('base64url');
    return once(id, () => attempt(method, value, address));
  };
}

type CredentialCheck = (
  kind: CredentialKind,
  value: string,
  request: FastifyRequest,
  reply: FastifyReply,
  challenge: boolean,
) => Promise<Principal>;

/**
 * The principal of a credential of a method that is on: one already known good, else verified
 * within the failed sign-in limit. `challenge`: say in WWW-Authenticate how to authenticate (not
 * to the panel's sign-in, where a browser would show its own dialogue).
 */
function credentialCheck(
  methods: ReadonlyMap<CredentialKind, Method>,
  verify: ReturnType<typeof limitedVerification>,
  refused: (reason: AuthFailure) => void,
): CredentialCheck {
  return async (kind, value, request, reply, challenge) => {
    const method = methods.get(kind);
    if (method === undefined) throw new BadRequest(`signing in with ${kind} is not on here`);
    // Before the failure limit: someone else's failed attempts from the same address (a client
    // retrying a revoked key, say) must not lock out the holder of a good credential.
    const known = method.known(value, request.ip);
    if (known !== undefined) return known;
    let outcome: Outcome;
    try {
      outcome = await verify(kind, method, value, request.ip);
    } catch (err) {
      if (!(err instanceof InvalidCredentialError)) throw err;
      refused(kind);
      if (challenge) reply.header('www-authenticate', CHALLENGES[kind]);
      throw new Unauthorized(err.message);
    }
    if ('blockedFor' in outcome) {
      refused('blocked');
      reply.header('retry-after', String(Math.ceil(outcome.blockedFor / 1000)));
      throw new TooManyRequests('too many failed authentication attempts from this address; try again later');
    }
    return outcome.principal;
  };
}

/**
 * The principal of the panel's session cookie, found again now; an ended session is a 401 that
 * deletes the cookie (the panel's session route answers signed out instead). A request made with
 * the cookie must say it comes from the panel (src/panel/csrf.ts).
 */
function sessionCheck(
  app: FastifyInstance,
  refused: (reason: AuthFailure) => void,
): (id: string, request: FastifyRequest, reply: FastifyReply) => Promise<Principal | null> {
  return async (id, request, reply) => {
    const principal = await app.panelSessions.principalOf(id);
    if (principal === undefined) {
      reply.header('set-cookie', app.panelSessions.clearCookie());
      if (request.routeOptions.config.authOptional === true) return null;
      refused('session');
      throw new Unauthorized(SESSION_ENDED);
    }
    const refusal = panelCookieRefusal(request.method, request.headers, app.panelSessions.originOf(request));
    if (refusal !== undefined) throw new Forbidden(refusal);
    return principal;
  };
}

/**
 * Authentication chain in `onRequest` (credentials.ts): API key, bearer token, Basic. The first
 * provider whose credential is present decides; a present but invalid credential is a 401 and
 * never falls through. A credential not already known good takes one attempt from its client
 * address's failed sign-in limit before it is verified, and gives it back when it proves good. A
 * route whose config says `tickets` also takes a single-use console ticket (plugins/tickets.ts)
 * when no header is present; without either, the panel's session cookie (plugins/panel-sessions.ts).
 * Authorization is attached per route from `config.permission` by one `onRoute` hook.
 */
export default fp<AuthPluginOptions>(
  async (app, opts) => {
    const { modes, roles } = opts;
    const refused = opts.refused ?? (() => undefined);
    const methods = await methodsOf(app, opts);
    const enabled = new Set(methods.keys());
    const challenges = missingChallenges(enabled);
    const verify = limitedVerification(opts.failures);

    app.decorateRequest('principal', null);
    app.decorateRequest('visibleNamespaces', null);

    /** The principal's role as the role table resolves it: what every permission check asks. */
    const roleOf = (principal: Principal) => (principal.role === undefined ? undefined : roles.get(principal.role));
    app.decorate(
      'mayDo',
      (request: FastifyRequest, permission: Permission, namespace?: string) =>
        request.principal !== null && authorize({ role: roleOf(request.principal) }, permission, namespace),
    );

    const byCredential = credentialCheck(methods, verify, refused);
    app.decorate(
      'verifyCredential',
      (kind: CredentialKind, value: string, request: FastifyRequest, reply: FastifyReply) =>
        byCredential(kind, value, request, reply, false),
    );
    const bySession = sessionCheck(app, refused);

    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.public) return;
      if (modes.has('none')) {
        request.principal = ANONYMOUS;
        return;
      }
      const { headers } = request;
      const sources = {
        apiKey: headers['x-api-key'],
        authorization: headers.authorization,
        ticket: ticketOf(request),
        cookie: cookieValue(headers.cookie, PANEL_COOKIE),
      };
      const credential = credentialOf(sources, enabled);
      if (credential?.kind === 'ticket') {
        request.principal = await redeemTicket(app, request, credential.value);
        return;
      }
      if (credential?.kind === 'session') {
        request.principal = await bySession(credential.value, request, reply);
        return;
      }
      if (credential === undefined) {
        if (request.routeOptions.config.authOptional === true) return;
        refused('missing');
        reply.header('www-authenticate', challenges);
        throw new Unauthorized(`authentication is required (${challenges.map((c) => c.split(' ')[0]).join(', ')})`);
      }
      request.principal = await byCredential(credential.kind, credential.value, request, reply, true);
    });

    guardRoutes(app, (route) => permissionCheck(route, roleOf));
  },
  { name: 'auth', dependencies: ['apikeys', 'tickets', 'panel-sessions'] },
);
