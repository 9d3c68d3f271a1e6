import { createSecretKey, hash } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { JWTPayload } from 'jose';
import {
  createOidcTokenVerifier,
  DEFAULT_CLOCK_TOLERANCE_MS,
  InvalidTokenError,
  invalidTokenReason,
  toleranceSeconds,
  TtlCache,
} from '@gsp/service-kit';
import {
  hasControlCharacters,
  hasLoneSurrogate,
  isReservedName,
  RESERVED_PREFIX,
  tokenSubjectProblem,
} from '@gsp/platform-contract';

export { InvalidTokenError };

/** A bearer token that checked out: whom it names, and its claims. */
export interface VerifiedToken {
  /** `<issuer>#<sub>` for OIDC tokens, the plain `sub` for HS256 tokens; role bindings name this. */
  subject: string;
  claims: JWTPayload;
}

export interface VerifierOptions {
  /** HS256 tokens (development and tests): signed with `secret`, `aud` must include `audience`. */
  jwt?: { secret: Uint8Array; audience: string } | undefined;
  /** `jwksCooldownMs`: the least time between two key-set fetches triggered by unknown key ids. */
  oidc?: { issuerUrl: string; audience: string; jwksCooldownMs?: number } | undefined;
  /** `AUTH_CLOCK_TOLERANCE`, for both kinds of token. Default 5000 ms. */
  clockToleranceMs?: number | undefined;
}

/** Every token must expire: without `exp` a leaked token would be valid forever. */
const REQUIRED_CLAIMS = ['exp'];

/** Verifies bearer tokens and remembers those that checked out. */
export interface TokenVerifier {
  /**
   * The token's verification, when a verified token is remembered: most requests present a token
   * verified moments ago, and this answers them without a promise.
   */
  remembered(token: string): VerifiedToken | undefined;
  /** Verifies the token (or answers from memory) and remembers it; rejects with InvalidTokenError. */
  verify(token: string): Promise<VerifiedToken>;
}

/**
 * Verifies bearer tokens: HS256 with the shared secret, everything else with service-kit's OIDC
 * verifier. Verified tokens are remembered up to a minute (never past their expiry), keyed by the
 * token's SHA-256 so the cache never holds a usable credential: a signature check costs
 * 150-200 µs, a one-shot hash 0.3 µs.
 */
export function createTokenVerifier(options: VerifierOptions): TokenVerifier {
  const cache = new TtlCache<string, VerifiedToken>({ ttlMs: 60_000, maxEntries: 10_000 });
  // A KeyObject verifies faster than raw bytes, which jose would import on every call.
  const hs256 = options.jwt ? { key: createSecretKey(options.jwt.secret), audience: options.jwt.audience } : undefined;
  const clockToleranceMs = options.clockToleranceMs ?? DEFAULT_CLOCK_TOLERANCE_MS;
  const oidc = options.oidc
    ? createOidcTokenVerifier({
        ...options.oidc,
        requiredClaims: REQUIRED_CLAIMS,
        clockToleranceMs,
        subjectProblem: tokenSubjectProblem,
      })
    : undefined;

  async function verifyHs256(token: string, key: NonNullable<typeof hs256>): Promise<VerifiedToken> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key.key, {
        algorithms: ['HS256'],
        audience: key.audience,
        requiredClaims: REQUIRED_CLAIMS,
        clockTolerance: toleranceSeconds(clockToleranceMs),
      }));
    } catch (err) {
      throw invalidTokenReason(err);
    }
    const sub = subjectOf(payload.sub);
    // `#` marks an OIDC subject; an HS256 token must not be able to name one.
    if (sub.includes('#')) throw new InvalidTokenError('the subject of an HS256 token may not contain "#"');
    return { subject: sub, claims: payload };
  }

  async function verifyUncached(token: string): Promise<VerifiedToken> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new InvalidTokenError('the bearer token is not a JWT');
    }
    if (alg === 'HS256' && hs256) return verifyHs256(token, hs256);
    if (oidc && alg !== undefined && !alg.startsWith('HS') && alg !== 'none') {
      const claims = await oidc.verify(token);
      // A `sub` is unique only within its issuer (OIDC Core 2). `<issuer>#<sub>` is the name
      // kube-apiserver gives OIDC users too; the verifier has checked that `iss` is the issuer's.
      return { subject: `${claims.iss}#${subjectOf(claims.sub)}`, claims };
    }
    throw new InvalidTokenError(`tokens signed with ${alg ?? 'no algorithm'} are not accepted`);
  }

  const keyOf = (token: string) => hash('sha256', token, 'base64url');
  return {
    remembered: (token) => cache.get(keyOf(token)),
    async verify(token) {
      const key = keyOf(token);
      const cached = cache.get(key);
      if (cached) return cached;
      const verified = await verifyUncached(token);
      const exp = verified.claims.exp;
      cache.set(key, verified, typeof exp === 'number' ? exp * 1000 : Infinity);
      return verified;
    },
  };
}

function subjectOf(sub: unknown): string {
  if (typeof sub !== 'string' || sub === '') throw new InvalidTokenError('the token has no subject');
  // The subject is written into role bindings and kubeconfigs and becomes Impersonate-User at a cluster.
  if (hasControlCharacters(sub)) throw new InvalidTokenError("the token's subject contains control characters");
  if (hasLoneSurrogate(sub)) throw new InvalidTokenError("the token's subject holds half of a character");
  if (isReservedName(sub))
    throw new InvalidTokenError(`the token's subject begins with "${RESERVED_PREFIX}", which Kubernetes reserves`);
  return sub;
}
