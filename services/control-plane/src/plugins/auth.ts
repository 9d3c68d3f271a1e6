import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { AuthMode, BasicConfig, OidcConfig } from '../config.js';
import { createBasicVerifier } from '../auth/basic.js';
import { createOidcVerifier } from '../auth/oidc.js';
import { InvalidCredentialError } from '../auth/principal.js';
import type { Principal } from '../auth/principal.js';
import type { FailureLimiter } from '../auth/failures.js';
import type { AuthFailure } from '../metrics.js';
import { isWellFormedKey } from '../apikeys/keys.js';
import type { ApiKeyRecord } from '../apikeys/store.js';
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
    const challenges: string[] = [];
    if (modes.has('apikey')) challenges.push(`ApiKey realm="${REALM}", header="X-API-Key"`);
    if (oidc) challenges.push(`Bearer realm="${REALM}"`);
    if (basic) challenges.push(`Basic realm="${REALM}", charset="UTF-8"`);

    app.decorateRequest('principal', null);
    app.decorateRequest('visibleNamespaces', null);

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

    type Credential = { kind: 'apikey' | 'bearer' | 'basic'; value: string; challenge: string };

    /** The credential that decides: the first present in the order API key, bearer token, Basic. */
    function credentialOf(request: FastifyRequest): Credential | undefined {
      const apiKey = request.headers['x-api-key'];
      if (modes.has('apikey') && apiKey !== undefined) {
        return {
          kind: 'apikey',
          value: Array.isArray(apiKey) ? '' : apiKey.trim(),
          challenge: challenges[0] as string,
        };
      }
      const authorization = request.headers.authorization ?? '';
      const space = authorization.indexOf(' ');
      const scheme = (space < 0 ? authorization : authorization.slice(0, space)).toLowerCase();
      if (oidc && scheme === 'bearer')
        return { kind: 'bearer', value: authorization, challenge: `Bearer realm="${REALM}", error="invalid_token"` };
      if (basic && scheme === 'basic')
        return { kind: 'basic', value: authorization, challenge: `Basic realm="${REALM}", charset="UTF-8"` };
      return undefined;
    }

    /** The user and password of a Basic header, or undefined when it is malformed. */
    function basicPair(value: string): { user: string; password: string } | undefined {
      const decoded = Buffer.from(/^Basic +(\S+)\s*$/i.exec(value)?.[1] ?? '', 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }

    const bearerToken = (value: string) => /^Bearer +(\S+)\s*$/i.exec(value)?.[1];

    const apiKeyRecord = (key: string): ApiKeyRecord | undefined =>
      isWellFormedKey(opts.apikeyPrefix, key) ? app.apikeys.lookup(key) : undefined;
    const expired = (record: ApiKeyRecord) =>
      record.expiresAt !== undefined && Date.parse(record.expiresAt) <= Date.now();

    function apiKeyPrincipal(record: ApiKeyRecord): Principal {
      app.apikeys.touch(record);
      const { name, role, sha256 } = record;
      return { userId: name, username: name, role, method: 'apikey', apiKey: { name, sha256 } };
    }

    /**
     * The principal of a credential already known good, found without verifying anything: a
     * current API key, or a token or Basic password verified lately (Basic: from this address).
     */
    function known(credential: Credential, address: string): Principal | undefined {
      switch (credential.kind) {
        case 'apikey': {
          const record = apiKeyRecord(credential.value);
          return record === undefined || expired(record) ? undefined : apiKeyPrincipal(record);
        }
        case 'bearer': {
          const token = bearerToken(credential.value);
          return token === undefined ? undefined : oidc?.known(token);
        }
        case 'basic': {
          const pair = basicPair(credential.value);
          return pair === undefined ? undefined : basic?.known(pair.user, pair.password, address);
        }
      }
    }

    async function verify(credential: Credential, address: string): Promise<Principal> {
      switch (credential.kind) {
        case 'apikey': {
          const record = apiKeyRecord(credential.value);
          if (!record) throw new InvalidCredentialError('the API key is not valid');
          if (expired(record)) throw new InvalidCredentialError('the API key has expired');
          return apiKeyPrincipal(record);
        }
        case 'bearer': {
          const token = bearerToken(credential.value);
          if (token === undefined || !oidc) throw new InvalidCredentialError('the bearer token is malformed');
          return oidc.verify(token);
        }
        case 'basic': {
          const pair = basicPair(credential.value);
          if (pair === undefined || !basic) throw new InvalidCredentialError('the Basic credentials are malformed');
          return basic.verify(pair.user, pair.password, address);
        }
      }
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
        const principal = await verify(credential, address);
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
    const pending = new Map<string, Promise<Outcome>>();

    function shared(credential: Credential, address: string): Promise<Outcome> {
      const id = createHash('sha256').update(`${address}\n${credential.kind}\n${credential.value}`).digest('base64url');
      let outcome = pending.get(id);
      if (outcome === undefined) {
        outcome = attempt(credential, address);
        pending.set(id, outcome);
        void outcome.finally(() => pending.delete(id)).catch(() => undefined);
      }
      return outcome;
    }

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
      const principal = known(credential, request.ip);
      if (principal !== undefined) {
        request.principal = principal;
        return;
      }
      let outcome: Outcome;
      try {
        outcome = await shared(credential, request.ip);
      } catch (err) {
        if (!(err instanceof InvalidCredentialError)) throw err;
        refused(credential.kind);
        reply.header('www-authenticate', credential.challenge);
        throw new Unauthorized(err.message);
      }
      if ('blockedFor' in outcome) {
        refused('blocked');
        reply.header('retry-after', String(Math.ceil(outcome.blockedFor / 1000)));
        throw new TooManyRequests('too many failed authentication attempts from this address; try again later');
      }
      request.principal = outcome.principal;
    });

    app.addHook('onRoute', (route) => {
      const permission = route.config?.permission;
      if (permission === undefined) {
        // Fail the boot, not open a hole: an API route whose config lost its permission would run for anyone signed in.
        if (route.config?.public !== true && route.url.startsWith('/api/'))
          throw new Error(`route ${route.method} ${route.url} declares no permission`);
        return;
      }
      const scope = route.config?.scope ?? 'cluster';
      const check = async (request: FastifyRequest) => {
        const principal = request.principal;
        if (!principal) throw new Unauthorized('authentication is required');
        const user = { role: principal.role === undefined ? undefined : roles.get(principal.role) };
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
      const existing = route.preValidation;
      route.preValidation =
        existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
    });
  },
  { name: 'auth', dependencies: ['kube'] },
);
