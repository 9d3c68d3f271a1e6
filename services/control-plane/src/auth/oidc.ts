import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { createOidcTokenVerifier, InvalidTokenError, TtlCache } from '@gsp/service-kit';
import type { VerifiedClaims } from '@gsp/service-kit';
import { tokenSubjectProblem } from '@gsp/platform-contract';
import type { OidcConfig } from '../config/index.js';
import type { Roles } from '../rbac/roles.js';
import { InvalidCredentialError } from './principal.js';
import type { Principal } from './principal.js';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/** Follows a dotted path (`realm_access.roles`) into the claims. */
export function claimAt(claims: JWTPayload, path: string): unknown {
  let value: unknown = claims;
  for (const part of path.split('.')) {
    // Own keys only: a path part such as `constructor` must not reach what every object inherits.
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The highest role that the token's role claim (a string or a list) maps to, if any. */
export function roleFromClaims(
  claims: JWTPayload,
  config: Pick<OidcConfig, 'roleClaim' | 'roleMapping'>,
  roles: Roles,
): string | undefined {
  const raw = claimAt(claims, config.roleClaim);
  const values =
    typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : [];
  const mapped = values.map((v) => config.roleMapping.get(v)).filter((r): r is string => r !== undefined);
  return roles.highest(mapped);
}

export function usernameFromClaims(claims: JWTPayload): string {
  for (const name of ['preferred_username', 'email', 'sub']) {
    const value = claims[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return '';
}

export interface OidcVerifier {
  /** The principal of a token verified in the last minute (and not expired since), without any work. */
  known(token: string): Principal | undefined;
  verify(token: string): Promise<Principal>;
  /** Runs discovery now (at start), so a wrong issuer shows in the log early. */
  discover(): Promise<void>;
}

/**
 * Bearer tokens from the OIDC issuer, verified by service-kit's OIDC verifier (discovery, the
 * issuer's rotating JWKS, issuer, audience and times), then mapped to a principal and its role.
 * Verified tokens are kept in an LRU keyed by their SHA-256.
 */
export function createOidcVerifier(config: OidcConfig, roles: Roles): OidcVerifier {
  const tokens = createOidcTokenVerifier({
    issuerUrl: config.issuerUrl,
    audience: config.clientId,
    jwksCooldownMs: config.jwksCooldownMs,
    clockToleranceMs: config.clockToleranceMs,
    algorithms: ALGORITHMS,
    subjectProblem: tokenSubjectProblem,
  });
  const cache = new TtlCache<string, Principal>({ ttlMs: 60_000, maxEntries: 10_000 });
  const cacheKey = (token: string) => createHash('sha256').update(token).digest('base64url');

  return {
    async discover() {
      await tokens.discover();
    },
    known: (token) => cache.get(cacheKey(token)),
    async verify(token) {
      const key = cacheKey(token);
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      let claims: VerifiedClaims;
      try {
        claims = await tokens.verify(token);
      } catch (err) {
        if (err instanceof InvalidTokenError) throw new InvalidCredentialError(err.message);
        throw err;
      }
      const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Infinity;
      const principal: Principal = {
        userId: claims.sub,
        username: usernameFromClaims(claims),
        role: roleFromClaims(claims, config, roles),
        method: 'oidc',
      };
      if (Number.isFinite(exp)) principal.expiresAt = exp;
      cache.set(key, principal, exp);
      return principal;
    },
  };
}
