import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify, errors as joseErrors } from 'jose';
import type { JWTPayload } from 'jose';
import type { OidcConfig } from '../config.js';
import type { Roles } from '../rbac/roles.js';
import { InvalidCredentialError } from './principal.js';
import type { Principal } from './principal.js';

const CLOCK_TOLERANCE_S = 30;
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/** Follows a dotted path (`realm_access.roles`) into the claims. */
export function claimAt(claims: JWTPayload, path: string): unknown {
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
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

interface Discovered {
  issuer: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

export interface OidcVerifier {
  /** The principal of a token verified in the last minute (and not expired since), without any work. */
  known(token: string): Principal | undefined;
  verify(token: string): Promise<Principal>;
  /** Runs discovery now (at start), so a wrong issuer shows in the log early. */
  discover(): Promise<void>;
}

/**
 * Bearer tokens from the OIDC issuer: discovery with openid-client, signatures against the
 * issuer's JWKS (an unknown `kid` refetches the set, at most once per cooldown, so key rotation
 * needs no restart). Verified tokens are kept in an LRU keyed by their SHA-256.
 */
export function createOidcVerifier(config: OidcConfig, roles: Roles): OidcVerifier {
  let discovery: Promise<Discovered> | undefined;
  const cache = new Map<string, { principal: Principal; until: number }>();

  function discover(): Promise<Discovered> {
    discovery ??= (async () => {
      const url = new URL(config.issuerUrl);
      const options = url.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : undefined;
      const configuration = await client.discovery(url, config.clientId, undefined, undefined, {
        ...options,
        timeout: 5,
      });
      const metadata = configuration.serverMetadata();
      if (typeof metadata.jwks_uri !== 'string') throw new Error('the OIDC discovery document has no jwks_uri');
      return {
        issuer: metadata.issuer,
        jwks: createRemoteJWKSet(new URL(metadata.jwks_uri), {
          cooldownDuration: config.jwksCooldownMs,
          timeoutDuration: 5000,
        }),
      };
    })();
    // A failed discovery is retried by the next request instead of being remembered.
    discovery.catch(() => {
      discovery = undefined;
    });
    return discovery;
  }

  async function verifyUncached(token: string): Promise<{ principal: Principal; exp: number }> {
    const { issuer, jwks } = await discover();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer,
        audience: config.clientId,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new InvalidCredentialError('the token has expired');
      if (err instanceof joseErrors.JOSEError) throw new InvalidCredentialError('the token could not be verified');
      throw err;
    }
    if (typeof payload.sub !== 'string' || payload.sub === '')
      throw new InvalidCredentialError('the token has no subject');
    const exp = typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity;
    const principal: Principal = {
      userId: payload.sub,
      username: usernameFromClaims(payload),
      role: roleFromClaims(payload, config, roles),
      method: 'oidc',
    };
    if (Number.isFinite(exp)) principal.expiresAt = exp;
    return { principal, exp };
  }

  const cacheKey = (token: string) => createHash('sha256').update(token).digest('base64url');

  function known(key: string, now: number): Principal | undefined {
    const hit = cache.get(key);
    if (hit === undefined) return undefined;
    cache.delete(key);
    if (hit.until <= now) return undefined;
    cache.set(key, hit);
    return hit.principal;
  }

  return {
    async discover() {
      await discover();
    },
    known: (token) => known(cacheKey(token), Date.now()),
    async verify(token) {
      const now = Date.now();
      const key = cacheKey(token);
      const hit = known(key, now);
      if (hit !== undefined) return hit;
      const { principal, exp } = await verifyUncached(token);
      const until = Math.min(now + CACHE_TTL_MS, exp);
      if (until > now) {
        if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
        cache.set(key, { principal, until });
      }
      return principal;
    },
  };
}
