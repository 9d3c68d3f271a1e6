import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { createTokenVerifier, InvalidTokenError } from '../auth/verifier.js';
import type { TokenVerifier, VerifiedToken, VerifierOptions } from '../auth/verifier.js';
import {
  authorize,
  hasControlCharacters,
  isPlatformAdmin,
  platformResource,
  readBindings,
  rolesWith,
  tenantResource,
  tenantRole,
} from '@gsp/platform-contract';
import type { PlatformPermission, Queryable, RoleBinding } from '@gsp/platform-contract';
import { bearerToken, guardRoutes, InvalidRequestError } from '@gsp/service-kit';
import type { RouteGuard } from '@gsp/service-kit';
import { Forbidden, NotFound, Unauthorized } from '../errors.js';
import { tenantExists } from '../tenants/store.js';
import { cookieValue } from '../console-bff/cookies.js';
import { actorOf } from '../auth/actor.js';
import { consoleWriteRefusal } from '../auth/session-cookies.js';
import type { SessionCookies } from '../auth/session-cookies.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Skip authentication (health, discovery documents). */
    public?: boolean;
    /** The permission the route requires; checked before the body is validated. */
    permission?: PlatformPermission;
    /** A platform admin may act on a tenant that does not exist yet (the route creates it). */
    createsTenant?: boolean;
  }
  interface FastifyRequest {
    /**
     * The caller's bearer token, verified; null on public routes. A request signed in with the
     * console's session cookie has one too: the session's subject, `exp` its end.
     */
    verifiedToken: VerifiedToken | null;
    /** The caller was authenticated by the console's session cookie, not a bearer token. */
    viaConsoleSession: boolean;
    /** That session's id hash (SHA-256), so what it opens can end with it; null for bearer tokens. */
    consoleSessionHash: string | null;
  }
  interface FastifyInstance {
    /**
     * Lets requests without a bearer token authenticate with a session cookie (the console's
     * sign-in plugin calls this once, at registration, when the console has a sign-in).
     */
    acceptSessionCookies(sessions: SessionCookies): void;
  }
}

export interface AuthPluginOptions extends VerifierOptions {
  platformId: string;
}

const REALM = 'Bearer realm="gsp-api"';

/** The OpenAPI security scheme of bearer tokens (`components.securitySchemes`). */
export const SECURITY_SCHEME = 'bearer';

/** A token that does not verify is a 401 saying why; any other failure (a key set out of reach) stays itself. */
function refusal(reply: FastifyReply, err: unknown): Error {
  if (!(err instanceof InvalidTokenError)) return err as Error;
  reply.header('www-authenticate', `${REALM}, error="invalid_token"`);
  return new Unauthorized(err.message);
}

/** A request without a bearer token: the console's session cookie, if it names a live session. */
function authenticateBySession(
  sessions: SessionCookies | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  done: (err?: Error) => void,
): void {
  const id = sessions === undefined ? undefined : cookieValue(request.headers.cookie, sessions.cookieName);
  if (sessions === undefined || id === undefined) {
    reply.header('www-authenticate', REALM);
    return done(new Unauthorized('a bearer token is required'));
  }
  const refused = consoleWriteRefusal(request.method, request.headers, sessions.origin);
  if (refused !== undefined) return done(new Forbidden(refused));
  sessions.lookup(id).then((session) => {
    if (session === undefined)
      return done(new Unauthorized('the console session has ended (signed out or expired): sign in again'));
    const exp = Math.floor(session.expiresAt.getTime() / 1000);
    request.verifiedToken = { subject: session.subject, claims: { sub: session.subject, exp } };
    request.viaConsoleSession = true;
    request.consoleSessionHash = session.idHash;
    done();
  }, done);
}

/**
 * The `onRequest` hook: a bearer token, else the console's session cookie (once `sessions` says
 * which). Not async: a token verified moments ago (nearly every request) is answered without a promise.
 */
function authenticate(verifier: TokenVerifier, sessions: () => SessionCookies | undefined): onRequestHookHandler {
  return (request, reply, done) => {
    if (request.routeOptions.config.public) return done();
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) return authenticateBySession(sessions(), request, reply, done);
    const known = verifier.remembered(token);
    if (known !== undefined) {
      request.verifiedToken = known;
      return done();
    }
    verifier.verify(token).then(
      (verified) => {
        request.verifiedToken = verified;
        done();
      },
      (err: unknown) => done(refusal(reply, err)),
    );
  };
}

/** The OpenAPI document says, per operation, whether it needs a token and which permission. */
function documentSecurity(route: RouteOptions): void {
  const permission = route.config?.permission;
  route.schema = {
    ...route.schema,
    security: route.config?.public ? [] : [{ [SECURITY_SCHEME]: [] }],
    ...(permission === undefined ? {} : { 'x-permission': permission }),
  };
}

/** What each tenant permission lets a member do, in words. */
const PERMISSION_WORDS = new Map<PlatformPermission, string>([
  ['tenant.read', 'see its clusters'],
  ['clusters.register', 'download a kubeconfig, register or delete a cluster, or switch its CLI access'],
  ['members.manage', 'see or change its members'],
]);

/** Why a permission is refused in tenant `org`, in words: the caller's role, who may, and who can help. */
export function refusalInTenant(permission: PlatformPermission, org: string, bindings: readonly RoleBinding[]): string {
  const role = tenantRole(bindings, org);
  if (role === undefined)
    return `you are not a member of tenant ${org}: a tenant admin or a platform admin can add you`;
  const roles = rolesWith(permission).map((r) => `${r}s`);
  const who =
    roles.length > 1 ? `${roles.slice(0, -1).join(', ')} and ${roles.at(-1)}` : (roles[0] ?? 'platform admins');
  const what = PERMISSION_WORDS.get(permission) ?? `use ${permission}`;
  return `you are a ${role} in tenant ${org}, and only its ${who} may ${what}: a tenant admin can change your role`;
}

/** The check of a route's declared permission, in the tenant its `:org` names (if any). */
function permissionGuard(db: Queryable, platformId: string): (route: RouteOptions) => RouteGuard | undefined {
  const platform = platformResource(platformId);
  return (route) => {
    const permission = route.config?.permission;
    if (permission === undefined) return undefined;
    const createsTenant = route.config?.createsTenant === true;
    return async (request: FastifyRequest) => {
      const subject = actorOf(request);
      const org = (request.params as { org?: string } | undefined)?.org;
      // The permission check runs before params validation and reads the org from the database.
      if (org !== undefined && hasControlCharacters(org)) {
        const detail = 'org must not contain control characters';
        throw new InvalidRequestError([{ in: 'path', pointer: '#/org', detail }]);
      }
      const resources = org === undefined ? [platform] : [platform, tenantResource(org)];
      const bindings = await readBindings(db, subject, resources);
      if (!authorize(bindings, platformId, permission, org)) {
        throw new Forbidden(
          org === undefined ? 'only platform admins may do this' : refusalInTenant(permission, org, bindings),
        );
      }
      // Members know their tenant exists; only a platform admin can ask about one that does not.
      if (org !== undefined && !createsTenant && isPlatformAdmin(bindings, platformId)) {
        if (!(await tenantExists(db, org))) throw new NotFound(`tenant ${org} not found`);
      }
    };
  };
}

export default fp<AuthPluginOptions>(
  async (app, opts) => {
    const verifier = createTokenVerifier(opts);
    app.decorateRequest('verifiedToken', null);
    app.decorateRequest('viaConsoleSession', false);
    app.decorateRequest('consoleSessionHash', null);
    let sessions: SessionCookies | undefined;
    app.decorate('acceptSessionCookies', (accepted: SessionCookies) => {
      sessions = accepted;
    });
    app.addHook(
      'onRequest',
      authenticate(verifier, () => sessions),
    );
    app.addHook('onRoute', documentSecurity);
    guardRoutes(app, permissionGuard(app.pg, opts.platformId));
  },
  { name: 'auth', dependencies: ['db'] },
);
