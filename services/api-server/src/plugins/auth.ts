import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createTokenVerifier, InvalidTokenError } from '../auth/verifier.js';
import type { VerifiedToken, VerifierOptions } from '../auth/verifier.js';
import {
  authorize,
  hasControlCharacters,
  isPlatformAdmin,
  platformResource,
  readBindings,
  tenantResource,
} from '@gsp/platform-contract';
import type { PlatformPermission } from '@gsp/platform-contract';
import { bearerToken, guardRoutes, InvalidRequestError } from '@gsp/service-kit';
import { Forbidden, NotFound, Unauthorized } from '../errors.js';
import { tenantExists } from '../tenants/store.js';

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
    /** The caller's bearer token, verified; null on public routes. */
    verifiedToken: VerifiedToken | null;
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
  if (!request.verifiedToken) throw new Unauthorized('a bearer token is required');
  return request.verifiedToken.subject;
}

export default fp<AuthPluginOptions>(
  async (app, opts) => {
    const verifier = createTokenVerifier(opts);
    const platform = platformResource(opts.platformId);

    app.decorateRequest('verifiedToken', null);

    /** A token that does not verify is a 401 saying why; any other failure (a key set out of reach) stays itself. */
    const refusal = (reply: FastifyReply, err: unknown): Error => {
      if (!(err instanceof InvalidTokenError)) return err as Error;
      reply.header('www-authenticate', `${REALM}, error="invalid_token"`);
      return new Unauthorized(err.message);
    };
    // Not async: a token verified moments ago (nearly every request) is answered without a promise.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.routeOptions.config.public) return done();
      const token = bearerToken(request.headers.authorization);
      if (token === undefined) {
        reply.header('www-authenticate', REALM);
        return done(new Unauthorized('a bearer token is required'));
      }
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
    });

    app.addHook('onRoute', (route) => {
      const permission = route.config?.permission;
      // The OpenAPI document says, per operation, whether it needs a token and which permission.
      route.schema = {
        ...route.schema,
        security: route.config?.public ? [] : [{ [SECURITY_SCHEME]: [] }],
        ...(permission === undefined ? {} : { 'x-permission': permission }),
      };
    });

    guardRoutes(app, (route) => {
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
        const bindings = await readBindings(app.pg, subject, resources);
        if (!authorize(bindings, opts.platformId, permission, org)) {
          throw new Forbidden(
            org === undefined
              ? `this requires the platform admin role`
              : `this requires permission ${permission} in tenant ${org}`,
          );
        }
        // Members know their tenant exists; only a platform admin can ask about one that does not.
        if (org !== undefined && !createsTenant && isPlatformAdmin(bindings, opts.platformId)) {
          if (!(await tenantExists(app.pg, org))) throw new NotFound(`tenant ${org} not found`);
        }
      };
    });
  },
  { name: 'auth', dependencies: ['db'] },
);
