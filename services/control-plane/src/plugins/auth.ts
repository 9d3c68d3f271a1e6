import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { bearerToken, guardRoutes, singleFlight } from '@gsp/service-kit';
import type { AuthMode, BasicConfig, OidcConfig } from '../config.js';
import { createApiKeyVerifier } from '../auth/apikey.js';
import { basicCredentials, createBasicVerifier } from '../auth/basic.js';
import { createOidcVerifier } from '../auth/oidc.js';
import { InvalidCredentialError } from '../auth/principal.js';
import type { Principal } from '../auth/principal.js';
import type { FailureLimiter } from '../auth/failures.js';
import type { AuthFailure } from '../metrics.js';
import { allowedNamespaces, authorize } from '../rbac/roles.js';
import type { Permission, Roles } from '../rbac/roles.js';
import { ROUTES } from '../routes/table.js';
import type { Scope } from '../routes/table.js';
import { Forbidden, TooManyRequests, Unauthorized } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Skip authentication (health probes). */
    public?: boolean;
    /** False: no audit line (health probes). */
    audit?: boolean;
    permission?: Permission;
    scope?: Scope;
  }
  interface FastifyInstance {
    /** Installs what redeems `?ticket=` on the console route (the console routes do, once). */
    acceptConsoleTickets(redeemer: TicketRedeemer): void;
    /** Whether the request's principal holds `permission` (in `namespace`, when given): for rules a route table cannot state alone. */
    mayDo(request: FastifyRequest, permission: Permission, namespace?: string): boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** For `filtered` routes: the namespaces whose items the caller may see. */
    visibleNamespaces: 'all' | ReadonlySet<string> | null;
  }
}

/**
 * Redeems a console ticket: the principal it was issued to, if it is current, unused and for
 * this game server. Browsers cannot set headers on a WebSocket, so the console route alone
 * accepts one in its query, and only when no credential header is present.
 */
export interface TicketRedeemer {
  redeem(ticket: string, target: { namespace: string; name: string }): Promise<Principal | undefined>;
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

const REALM = 'gsp-control-plane';
const ANONYMOUS: Principal = { userId: 'anonymous', username: 'anonymous', role: 'admin', method: 'none' };

/**
 * An authentication method: `known` finds the principal of a credential proven lately without
 * verifying anything (a current API key, a token or Basic password verified in the last minute,
 * Basic from this address); `verify` does the work, and throws InvalidCredentialError.
 */
interface Method {
  kind: 'apikey' | 'bearer' | 'basic';
  /** The `WWW-Authenticate` of a 401 for this credential. */
  challenge: string;
  known(value: string, address: string): Principal | undefined;
  verify(value: string, address: string): Promise<Principal>;
}

/** A credential present on a request, as the header has it (the key, the whole Authorization), and how to check it. */
interface Credential {
  method: Method;
  value: string;
}

/**
 * Authentication chain in `onRequest`: API key, bearer token, Basic. The first provider whose
 * credential is present decides; a present but invalid credential is a 401 and never falls
 * through. A credential not already known good takes one attempt from its client address's
 * failed sign-in limit before it is verified, and gives it back when it proves good. The
 * console route alone also takes a single-use ticket (`?ticket=`) when no header is present.
 * Authorization is attached per route from `config.permission` by one `onRoute` hook.
 */
export default fp<AuthPluginOptions>(
  async (app, opts) => {
    const { modes, roles } = opts;
    const refused = opts.refused ?? (() => undefined);
    const apikeys = modes.has('apikey') ? createApiKeyVerifier(app.apikeys, opts.apikeyPrefix) : undefined;
    const basic = modes.has('basic') && opts.basic ? await createBasicVerifier(opts.basic) : undefined;
    const oidc = modes.has('oidc') && opts.oidc ? createOidcVerifier(opts.oidc, roles) : undefined;
    if (oidc) {
      oidc
        .discover()
        .catch((err: unknown) =>
          app.log.warn(
            { err: { message: (err as Error).message } },
            'OIDC discovery failed; it is retried on the next bearer token',
          ),
        );
    }

    // The methods on: each takes its credential as the header has it.
    const byApiKey: Method | undefined = apikeys && {
      kind: 'apikey',
      challenge: `ApiKey realm="${REALM}", header="X-API-Key"`,
      known: (key) => apikeys.known(key),
      verify: (key) => apikeys.verify(key),
    };
    const byBearer: Method | undefined = oidc && {
      kind: 'bearer',
      challenge: `Bearer realm="${REALM}", error="invalid_token"`,
      known(header) {
        const token = bearerToken(header);
        return token === undefined ? undefined : oidc.known(token);
      },
      async verify(header) {
        const token = bearerToken(header);
        if (token === undefined) throw new InvalidCredentialError('the bearer token is malformed');
        return oidc.verify(token);
      },
    };
    const byBasic: Method | undefined = basic && {
      kind: 'basic',
      challenge: `Basic realm="${REALM}", charset="UTF-8"`,
      known(header, address) {
        const pair = basicCredentials(header);
        return pair === undefined ? undefined : basic.known(pair.user, pair.password, address);
      },
      async verify(header, address) {
        const pair = basicCredentials(header);
        if (pair === undefined) throw new InvalidCredentialError('the Basic credentials are malformed');
        return basic.verify(pair.user, pair.password, address);
      },
    };
    const challenges: string[] = [];
    if (byApiKey) challenges.push(byApiKey.challenge);
    if (byBearer) challenges.push(`Bearer realm="${REALM}"`);
    if (byBasic) challenges.push(byBasic.challenge);

    app.decorateRequest('principal', null);
    app.decorateRequest('visibleNamespaces', null);

    /** The principal's role as the role table resolves it: what every permission check asks. */
    const userOf = (principal: Principal) => ({
      role: principal.role === undefined ? undefined : roles.get(principal.role),
    });
    app.decorate(
      'mayDo',
      (request: FastifyRequest, permission: Permission, namespace?: string) =>
        request.principal !== null && authorize(userOf(request.principal), permission, namespace),
    );

    let tickets: TicketRedeemer | undefined;
    app.decorate('acceptConsoleTickets', (redeemer: TicketRedeemer) => {
      if (tickets !== undefined) throw new Error('console tickets are redeemed by one redeemer only');
      tickets = redeemer;
    });

    /** The `?ticket=` of a request to open a console; undefined on every other route. */
    function consoleTicketOf(request: FastifyRequest): string | undefined {
      if (request.method !== 'GET' || request.routeOptions.url !== ROUTES.openConsole.url) return undefined;
      const ticket = (request.query as { ticket?: unknown }).ticket;
      return typeof ticket === 'string' ? ticket : undefined;
    }

    /** The credential that decides: the first present in the order API key, bearer token, Basic. */
    function credentialOf(request: FastifyRequest): Credential | undefined {
      const apiKey = request.headers['x-api-key'];
      if (byApiKey && apiKey !== undefined)
        return { method: byApiKey, value: Array.isArray(apiKey) ? '' : apiKey.trim() };
      const authorization = request.headers.authorization ?? '';
      const space = authorization.indexOf(' ');
      const scheme = (space < 0 ? authorization : authorization.slice(0, space)).toLowerCase();
      if (byBearer && scheme === 'bearer') return { method: byBearer, value: authorization };
      if (byBasic && scheme === 'basic') return { method: byBasic, value: authorization };
      return undefined;
    }

    type Outcome = { principal: Principal } | { blockedFor: number };

    /**
     * One attempt: reserved against the address's failure limit before verifying (atomically,
     * so parallel guesses cannot all pass the check before any is counted), given back if good.
     */
    async function attempt(credential: Credential, address: string): Promise<Outcome> {
      const reservation = await opts.failures.reserve(address);
      if (reservation.blockedFor > 0) return { blockedFor: reservation.blockedFor };
      try {
        const principal = await credential.method.verify(credential.value, address);
        reservation.release();
        return { principal };
      } catch (err) {
        // Only a rejected credential counts as a failure, not an error of ours.
        if (!(err instanceof InvalidCredentialError)) reservation.release();
        throw err;
      }
    }

    // Identical concurrent attempts from one address share one reservation and one verification,
    // so a client's burst of parallel requests on a cold cache is not refused by its own limit.
    const once = singleFlight<string, Outcome>();
    const shared = (credential: Credential, address: string): Promise<Outcome> => {
      const id = createHash('sha256')
        .update(`${address}\n${credential.method.kind}\n${credential.value}`)
        .digest('base64url');
      return once(id, () => attempt(credential, address));
    };

    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.public) return;
      if (modes.has('none')) {
        request.principal = ANONYMOUS;
        return;
      }
      const credential = credentialOf(request);
      const ticket = credential === undefined ? consoleTicketOf(request) : undefined;
      if (ticket !== undefined) {
        const { namespace = '', name = '' } = request.params as { namespace?: string; name?: string };
        const principal = tickets === undefined ? undefined : await tickets.redeem(ticket, { namespace, name });
        if (principal === undefined)
          throw new Unauthorized(
            'the console ticket is not valid: it was used already, has expired or is for another game server',
          );
        request.principal = principal;
        return;
      }
      if (credential === undefined) {
        refused('missing');
        reply.header('www-authenticate', challenges);
        throw new Unauthorized(`authentication is required (${challenges.map((c) => c.split(' ')[0]).join(', ')})`);
      }
      // Before the failure limit: someone else's failed attempts from the same address (a client
      // retrying a revoked key, say) must not lock out the holder of a good credential.
      const principal = credential.method.known(credential.value, request.ip);
      if (principal !== undefined) {
        request.principal = principal;
        return;
      }
      let outcome: Outcome;
      try {
        outcome = await shared(credential, request.ip);
      } catch (err) {
        if (!(err instanceof InvalidCredentialError)) throw err;
        refused(credential.method.kind);
        reply.header('www-authenticate', credential.method.challenge);
        throw new Unauthorized(err.message);
      }
      if ('blockedFor' in outcome) {
        refused('blocked');
        reply.header('retry-after', String(Math.ceil(outcome.blockedFor / 1000)));
        throw new TooManyRequests('too many failed authentication attempts from this address; try again later');
      }
      request.principal = outcome.principal;
    });

    guardRoutes(app, (route) => {
      const permission = route.config?.permission;
      if (permission === undefined) {
        // Fail the boot, not open a hole: an API route whose config lost its permission would run for anyone signed in.
        if (route.config?.public !== true && route.url.startsWith('/api/'))
          throw new Error(`route ${route.method} ${route.url} declares no permission`);
        return undefined;
      }
      const scope = route.config?.scope ?? 'cluster';
      return async (request: FastifyRequest) => {
        const principal = request.principal;
        if (!principal) throw new Unauthorized('authentication is required');
        const user = userOf(principal);
        const denied = () =>
          new Forbidden(
            principal.role === undefined
              ? 'you are authenticated but have no role'
              : `role ${principal.role} may not ${permission.verb} ${permission.resource}`,
          );
        if (scope === 'filtered') {
          const visible = allowedNamespaces(user.role, permission);
          if (visible !== 'all' && visible.size === 0) throw denied();
          request.visibleNamespaces = visible;
          return;
        }
        const namespace = scope === 'namespace' ? (request.params as { namespace?: string }).namespace : undefined;
        if (!authorize(user, permission, namespace)) throw denied();
      };
    });
  },
  { name: 'auth', dependencies: ['apikeys'] },
);
