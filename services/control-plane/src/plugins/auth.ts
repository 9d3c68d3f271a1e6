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
import { allowedNamespaces, authorize } from '../rbac/roles.js';
import type { Permission, Roles } from '../rbac/roles.js';
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

const REALM = 'gsp-control-plane';
const ANONYMOUS: Principal = { userId: 'anonymous', username: 'anonymous', role: 'admin', method: 'none' };

/**
 * Authentication chain in `onRequest`: API key, bearer token, Basic. The first provider whose
 * credential is present decides; a present but invalid credential is a 401 and never falls
 * through. Authorization is attached per route from `config.permission` by one `onRoute` hook.
 */
export default fp<AuthPluginOptions>(
  async (app, opts) => {
    const { modes, roles } = opts;
    const refused = opts.refused ?? (() => undefined);
    const basic = modes.has('basic') && opts.basic ? await createBasicVerifier(opts.basic) : undefined;
    const oidc = modes.has('oidc') && opts.oidc ? createOidcVerifier(opts.oidc, roles) : undefined;
    if (oidc) {
      oidc.discover().catch((err: unknown) => app.log.warn({ err: { message: (err as Error).message } }, 'OIDC discovery failed; it is retried on the next bearer token'));
    }
    const challenges: string[] = [];
    if (modes.has('apikey')) challenges.push(`ApiKey realm="${REALM}", header="X-API-Key"`);
    if (oidc) challenges.push(`Bearer realm="${REALM}"`);
    if (basic) challenges.push(`Basic realm="${REALM}", charset="UTF-8"`);

    app.decorateRequest('principal', null);
    app.decorateRequest('visibleNamespaces', null);

    type Credential = { kind: 'apikey' | 'bearer' | 'basic'; value: string; challenge: string };

    /** The credential that decides: the first present in the order API key, bearer token, Basic. */
    function credentialOf(request: FastifyRequest): Credential | undefined {
      const apiKey = request.headers['x-api-key'];
      if (modes.has('apikey') && apiKey !== undefined) {
        return { kind: 'apikey', value: Array.isArray(apiKey) ? '' : apiKey.trim(), challenge: challenges[0] as string };
      }
      const authorization = request.headers.authorization ?? '';
      const space = authorization.indexOf(' ');
      const scheme = (space < 0 ? authorization : authorization.slice(0, space)).toLowerCase();
      if (oidc && scheme === 'bearer') return { kind: 'bearer', value: authorization, challenge: `Bearer realm="${REALM}", error="invalid_token"` };
      if (basic && scheme === 'basic') return { kind: 'basic', value: authorization, challenge: `Basic realm="${REALM}", charset="UTF-8"` };
      return undefined;
    }

    async function verify(credential: Credential): Promise<Principal> {
      switch (credential.kind) {
        case 'apikey': {
          const record = isWellFormedKey(opts.apikeyPrefix, credential.value) ? app.apikeys.lookup(credential.value) : undefined;
          if (!record) throw new InvalidCredentialError('the API key is not valid');
          if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= Date.now()) throw new InvalidCredentialError('the API key has expired');
          app.apikeys.touch(record);
          return { userId: record.name, username: record.name, role: record.role, method: 'apikey' };
        }
        case 'bearer': {
          const token = /^Bearer +(\S+)\s*$/i.exec(credential.value)?.[1];
          if (token === undefined || !oidc) throw new InvalidCredentialError('the bearer token is malformed');
          return oidc.verify(token);
        }
        case 'basic': {
          const decoded = Buffer.from(/^Basic +(\S+)\s*$/i.exec(credential.value)?.[1] ?? '', 'base64').toString('utf8');
          const colon = decoded.indexOf(':');
          if (colon < 0 || !basic) throw new InvalidCredentialError('the Basic credentials are malformed');
          return basic.verify(decoded.slice(0, colon), decoded.slice(colon + 1));
        }
      }
    }

    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.public) return;
      if (modes.has('none')) {
        request.principal = ANONYMOUS;
        return;
      }
      const credential = credentialOf(request);
      if (credential === undefined) {
        refused('missing');
        reply.header('www-authenticate', challenges);
        throw new Unauthorized(`authentication is required (${challenges.map((c) => c.split(' ')[0]).join(', ')})`);
      }
      const wait = await opts.failures.blockedFor(request.ip);
      if (wait > 0) {
        refused('blocked');
        reply.header('retry-after', String(Math.ceil(wait / 1000)));
        throw new TooManyRequests('too many failed authentication attempts from this address; try again later');
      }
      try {
        request.principal = await verify(credential);
      } catch (err) {
        if (!(err instanceof InvalidCredentialError)) throw err;
        refused(credential.kind);
        await opts.failures.fail(request.ip);
        reply.header('www-authenticate', credential.challenge);
        throw new Unauthorized(err.message);
      }
    });

    app.addHook('onRoute', (route) => {
      const permission = route.config?.permission;
      if (permission === undefined) return;
      const scope = route.config?.scope ?? 'cluster';
      const check = async (request: FastifyRequest) => {
        const principal = request.principal;
        if (!principal) throw new Unauthorized('authentication is required');
        const user = { role: principal.role === undefined ? undefined : roles.get(principal.role) };
        const denied = () => new Forbidden(principal.role === undefined ? 'you are authenticated but have no role' : `role ${principal.role} may not ${permission.verb} ${permission.resource}`);
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
      route.preValidation = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
    });
  },
  { name: 'auth', dependencies: ['kube'] },
);
