import { createHash, createSecretKey } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import type { JWTPayload } from 'jose';
import { hasControlCharacters } from '@gsp/platform-contract';

export interface Principal {
  /** `<issuer>#<sub>` for OIDC tokens, the plain `sub` for HS256 tokens; role bindings name this. */
  subject: string;
  claims: JWTPayload;
}

export interface VerifierOptions {
  /** HS256 tokens (development and tests): signed with `secret`, `aud` must include `audience`. */
  jwt?: { secret: Uint8Array; audience: string } | undefined;
  /** `jwksCooldownMs`: the least time between two key-set fetches triggered by unknown key ids. */
  oidc?: { issuerUrl: string; audience: string; jwksCooldownMs?: number } | undefined;
}

/** A token that is present but not acceptable; the message is safe to show the caller. */
export class InvalidTokenError extends Error {
  readonly code = 'ERR_INVALID_TOKEN';
}

const CLOCK_TOLERANCE_S = 30;
/** Verified tokens are remembered this long at most (and never past their own expiry). */
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * A small LRU of verified tokens, keyed by the token's SHA-256 so the cache never holds a
 * usable credential. Signature checks cost 150-200 µs each; a hash costs about 1 µs.
 */
class VerifiedTokenCache {
  private readonly entries = new Map<string, { principal: Principal; until: number }>();

  get(key: string, now: number): Principal | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.until <= now) return undefined;
    this.entries.set(key, entry);
    return entry.principal;
  }

  set(key: string, principal: Principal, now: number): void {
    const exp = typeof principal.claims.exp === 'number' ? principal.claims.exp * 1000 : Infinity;
    const until = Math.min(now + CACHE_TTL_MS, exp);
    if (until <= now) return;
    if (this.entries.size >= CACHE_MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { principal, until });
  }
}

interface Discovered {
  issuer: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

/**
 * Verifies bearer tokens: HS256 with the shared secret, everything else against the OIDC
 * issuer's JWKS (found by discovery; an unknown `kid` makes jose refetch the key set, with a
 * cooldown, so signing-key rotation needs no restart).
 */
export function createTokenVerifier(options: VerifierOptions): (token: string) => Promise<Principal> {
  let discovery: Promise<Discovered> | undefined;
  const cache = new VerifiedTokenCache();
  // A KeyObject verifies faster than raw bytes, which jose would import on every call.
  const hs256 = options.jwt ? { key: createSecretKey(options.jwt.secret), audience: options.jwt.audience } : undefined;

  function discover(issuerUrl: string, cooldownDuration: number): Promise<Discovered> {
    discovery ??= (async () => {
      const url = new URL(`${issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`);
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (!response.ok) throw new Error(`OIDC discovery answered ${response.status}`);
      const doc = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (typeof doc.issuer !== 'string' || typeof doc.jwks_uri !== 'string')
        throw new Error('OIDC discovery document lacks issuer or jwks_uri');
      return {
        issuer: doc.issuer,
        jwks: createRemoteJWKSet(new URL(doc.jwks_uri), { cooldownDuration, timeoutDuration: 5000 }),
      };
    })();
    // A failed discovery is retried by the next request instead of being cached forever.
    discovery.catch(() => {
      discovery = undefined;
    });
    return discovery;
  }

  return async (token) => {
    const now = Date.now();
    const cacheKey = createHash('sha256').update(token).digest('base64url');
    const cached = cache.get(cacheKey, now);
    if (cached) return cached;
    const principal = await verifyUncached(token);
    cache.set(cacheKey, principal, now);
    return principal;
  };

  async function verifyUncached(token: string): Promise<Principal> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new InvalidTokenError('the bearer token is not a JWT');
    }
    try {
      // Every token must expire: without `exp` a leaked token would be valid forever.
      const requiredClaims = ['exp'];
      if (alg === 'HS256' && hs256) {
        const { payload } = await jwtVerify(token, hs256.key, {
          algorithms: ['HS256'],
          audience: hs256.audience,
          requiredClaims,
          clockTolerance: CLOCK_TOLERANCE_S,
        });
        const sub = subjectOf(payload);
        // `#` marks an OIDC subject; an HS256 token must not be able to name one.
        if (sub.includes('#')) throw new InvalidTokenError('the subject of an HS256 token may not contain "#"');
        return { subject: sub, claims: payload };
      }
      if (options.oidc && alg !== undefined && !alg.startsWith('HS') && alg !== 'none') {
        const { issuer, jwks } = await discover(options.oidc.issuerUrl, options.oidc.jwksCooldownMs ?? 30_000);
        const { payload } = await jwtVerify(token, jwks, {
          issuer,
          audience: options.oidc.audience,
          requiredClaims,
          clockTolerance: CLOCK_TOLERANCE_S,
        });
        // A `sub` is unique only within its issuer (OIDC Core 2). `<issuer>#<sub>` is the name
        // kube-apiserver gives OIDC users too; jose has checked that `iss` is exactly `issuer`.
        return { subject: `${issuer}#${subjectOf(payload)}`, claims: payload };
      }
      throw new InvalidTokenError(`tokens signed with ${alg ?? 'no algorithm'} are not accepted`);
    } catch (err) {
      if (err instanceof InvalidTokenError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw new InvalidTokenError('the token has expired');
      // Raised only after the signature checked out, so naming the claim tells the caller nothing secret.
      if (err instanceof joseErrors.JWTClaimValidationFailed) {
        const problem = err.reason === 'missing' ? 'missing' : 'not accepted';
        throw new InvalidTokenError(`the token's "${err.claim}" claim is ${problem}`);
      }
      if (err instanceof joseErrors.JOSEError) throw new InvalidTokenError('the token could not be verified');
      throw err;
    }
  }
}

function subjectOf(payload: JWTPayload): string {
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new InvalidTokenError('the token has no subject');
  // The subject is written into role bindings and kubeconfigs and becomes Impersonate-User at a cluster.
  if (hasControlCharacters(payload.sub)) throw new InvalidTokenError("the token's subject contains control characters");
  return payload.sub;
}
