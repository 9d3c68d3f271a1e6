import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { createTokenVerifier, InvalidTokenError } from '../auth/verifier.js';
import type { Principal, VerifierOptions } from '../auth/verifier.js';
import {
  authorize,
  hasControlCharacters,
  isPlatformAdmin,
  platformResource,
  readBindings,
  tenantResource,
} from '@gsp/platform-contract';
import type { Permission, RoleBinding } from '@gsp/platform-contract';
import { InvalidRequestError } from '@gsp/service-kit';
import { Forbidden, NotFound, Unauthorized } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Skip authentication (health, metrics, discovery documents). */
    public?: boolean;
    /** The permission the route requires; checked before the body is validated. */
    permission?: Permission;
    /** A platform admin may act on a tenant that does not exist yet (the route creates it). */
    createsTenant?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The caller's role bindings, loaded by the permission check. */
    bindings: readonly RoleBinding[] | null;
  }
}

export interface AuthPluginOptions extends VerifierOptions {
  platformId: string;
}

const REALM = 'Bearer realm="gsp-api"';

/** The OpenAPI security scheme of bearer tokens (`components.securitySchemes`). */
export const SECURITY_SCHEME = 'bearer';

/** The authenticated subject of a request on a non-public route. */
export function actorOf(request: FastifyRequest): string {
  if (!request.principal) throw new Unauthorized('a bearer token is required');
  return request.principal.subject;
}

export default fp<AuthPluginOptions>(
  async (app, opts) => {
    const verify = createTokenVerifier(opts);
    const platform = platformResource(opts.platformId);

    app.decorateRequest('principal', null);
    app.decorateRequest('bindings', null);

    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.config.public) return;
      const header = request.headers.authorization;
      const match = header === undefined ? null : /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
      if (!match?.[1]) {
        reply.header('www-authenticate', REALM);
        throw new Unauthorized('a bearer token is required');
      }
      try {
        request.principal = await verify(match[1]);
      } catch (err) {
        if (!(err instanceof InvalidTokenError)) throw err;
        reply.header('www-authenticate', `${REALM}, error="invalid_token"`);
        throw new Unauthorized(err.message);
      }
    });

    app.addHook('onRoute', (route) => {
      const permission = route.config?.permission;
      // The OpenAPI document says, per operation, whether it needs a token and which permission.
      route.schema = {
        ...route.schema,
        security: route.config?.public ? [] : [{ [SECURITY_SCHEME]: [] }],
        ...(permission === undefined ? {} : { 'x-permission': permission }),
      };
      if (permission === undefined) return;
      const createsTenant = route.config?.createsTenant === true;
      const check = async (request: FastifyRequest) => {
        const principal = request.principal;
        if (!principal) throw new Unauthorized('a bearer token is required');
        const org = (request.params as { org?: string } | undefined)?.org;
        // The permission check runs before params validation and reads the org from the database.
        if (org !== undefined && hasControlCharacters(org)) {
          const detail = 'org must not contain control characters';
          throw new InvalidRequestError([{ in: 'path', pointer: '#/org', detail }]);
        }
        const resources = org === undefined ? [platform] : [platform, tenantResource(org)];
        const bindings = await readBindings(app.pg, principal.subject, resources);
        request.bindings = bindings;
        if (!authorize(bindings, opts.platformId, permission, org)) {
          throw new Forbidden(
            org === undefined
              ? `this requires the platform admin role`
              : `this requires permission ${permission} in tenant ${org}`,
          );
        }
        // Members know their tenant exists; only a platform admin can ask about one that does not.
        if (org !== undefined && !createsTenant && isPlatformAdmin(bindings, opts.platformId)) {
          const { rowCount } = await app.pg.query('SELECT 1 FROM tenants WHERE org = $1', [org]);
          if (rowCount === 0) throw new NotFound(`tenant ${org} not found`);
        }
      };
      const existing = route.preValidation;
      route.preValidation =
        existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
    });
  },
  { name: 'auth', dependencies: ['db'] },
);
