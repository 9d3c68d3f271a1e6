import { createRemoteJWKSet, jwtVerify, errors as joseErrors } from 'jose';
import type { JWTPayload } from 'jose';
import { hasLoneSurrogate } from './text.js';
import { durationVar } from './config.js';
import type { Env } from './config.js';

export interface OidcVerifierOptions {
  /** The issuer as configured; its discovery document must name exactly this issuer. */
  issuerUrl: string;
  /** What the token's `aud` must include (the client id). */
  audience: string;
  /** The least time between two key-set fetches triggered by unknown key ids. Default 30 000 ms. */
  jwksCooldownMs?: number | undefined;
  /** How long discovery and a key-set fetch may take. Default 5000 ms. */
  timeoutMs?: number | undefined;
  /** Accepted signature algorithms. Default: the asymmetric ones (never HS*, never none). */
  algorithms?: readonly string[] | undefined;
  /** Claims a token must carry besides `sub`, such as `exp`. */
  requiredClaims?: readonly string[] | undefined;
  /** How far the issuer's clock may be from ours (`AUTH_CLOCK_TOLERANCE`). Default 5000 ms. */
  clockToleranceMs?: number | undefined;
  /**
   * The product's own refusal of a subject (a name it keeps for itself): the sentence the 401
   * gives, or undefined when `sub` is fine. An empty subject or half a character is always refused.
   */
  subjectProblem?: ((sub: string) => string | undefined) | undefined;
}

/** The claims of a verified token; `sub` is a non-empty string. */
export type VerifiedClaims = JWTPayload & { sub: string };

/** A token that is present but not acceptable; the message is safe to show the caller. */
export class InvalidTokenError extends Error {
  readonly code = 'ERR_INVALID_TOKEN';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

/**
 * What a failed `jwtVerify` tells the caller: an `InvalidTokenError` with a message safe to show
 * for anything wrong with the token, any other error unchanged.
 */
export function invalidTokenReason(err: unknown): unknown {
  if (err instanceof joseErrors.JWTExpired) return new InvalidTokenError('the token has expired');
  // Raised only after the signature checked out, so naming the claim tells the caller nothing secret.
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    const problem = err.reason === 'missing' ? 'missing' : 'not accepted';
    return new InvalidTokenError(`the token's "${err.claim}" claim is ${problem}`);
  }
  if (err instanceof joseErrors.JOSEError) return new InvalidTokenError('the token could not be verified');
  return err;
}

export interface OidcTokenVerifier {
  /** The token's claims once its signature, issuer, audience and times check out. */
  verify(token: string): Promise<VerifiedClaims>;
  /** Runs discovery now (at start), so a wrong issuer shows in the log early; later calls reuse it. */
  discover(): Promise<{ issuer: string }>;
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** What `AUTH_CLOCK_TOLERANCE` is when unset: enough for clocks kept by NTP, short for an expired token. */
export const DEFAULT_CLOCK_TOLERANCE_MS = 5000;

/**
 * `AUTH_CLOCK_TOLERANCE`: how far an issuer's clock may be from ours when `exp` and `nbf` are
 * checked, the same in every service that verifies tokens. A token is refused that long after it
 * expired, and no longer.
 */
export function clockToleranceVar(env: Env): number {
  return durationVar(env, 'AUTH_CLOCK_TOLERANCE', DEFAULT_CLOCK_TOLERANCE_MS, 0);
}

/** jose's `clockTolerance` (seconds) for a tolerance in milliseconds. */
export const toleranceSeconds = (ms: number): number => ms / 1000;

interface Discovered {
  issuer: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

async function discoverIssuer(options: OidcVerifierOptions, timeoutMs: number): Promise<Discovered> {
  const url = new URL(`${options.issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`OIDC discovery at ${url.href} answered ${response.status}`);
  const doc = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (typeof doc.issuer !== 'string' || typeof doc.jwks_uri !== 'string')
    throw new Error(`the OIDC discovery document at ${url.href} lacks issuer or jwks_uri`);
  // OpenID Connect Discovery 1.0 §4.3: the document must be the configured issuer's own.
  if (new URL(doc.issuer).href !== new URL(options.issuerUrl).href)
    throw new Error(`the OIDC discovery document names issuer ${doc.issuer}, not ${options.issuerUrl}`);
  return {
    issuer: doc.issuer,
    jwks: createRemoteJWKSet(new URL(doc.jwks_uri), {
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: timeoutMs,
    }),
  };
}

/**
 * Bearer tokens of one OIDC issuer: discovery (bounded by `timeoutMs`, retried by the next call
 * after a failure), signatures against the issuer's JWKS (an unknown `kid` refetches the set, at
 * most once per cooldown, so key rotation needs no restart), then issuer, audience and times.
 * Failures of the token are `InvalidTokenError`; an unreachable issuer is a plain `Error`.
 */
export function createOidcTokenVerifier(options: OidcVerifierOptions): OidcTokenVerifier {
  const timeoutMs = options.timeoutMs ?? 5000;
  const algorithms = [...(options.algorithms ?? ASYMMETRIC)];
  const requiredClaims = [...(options.requiredClaims ?? [])];
  const clockTolerance = toleranceSeconds(options.clockToleranceMs ?? DEFAULT_CLOCK_TOLERANCE_MS);
  let discovery: Promise<Discovered> | undefined;

  function discover(): Promise<Discovered> {
    discovery ??= discoverIssuer(options, timeoutMs);
    // A failed discovery is retried by the next call instead of being remembered.
    discovery.catch(() => {
      discovery = undefined;
    });
    return discovery;
  }

  return {
    async discover() {
      return { issuer: (await discover()).issuer };
    },
    async verify(token) {
      const { issuer, jwks } = await discover();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          issuer,
          audience: options.audience,
          algorithms,
          requiredClaims,
          clockTolerance,
        }));
      } catch (err) {
        throw invalidTokenReason(err);
      }
      if (typeof payload.sub !== 'string' || payload.sub === '')
        throw new InvalidTokenError('the token has no subject');
      const problem = options.subjectProblem?.(payload.sub);
      if (problem !== undefined) throw new InvalidTokenError(problem);
      // Written into audit records and Kubernetes objects, neither of which can hold half a character.
      if (hasLoneSurrogate(payload.sub)) throw new InvalidTokenError("the token's subject holds half of a character");
      return payload as VerifiedClaims;
    },
  };
}
