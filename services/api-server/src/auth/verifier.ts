import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import type { JWTPayload } from 'jose';

export interface Principal {
  subject: string;
  claims: JWTPayload;
}

export interface VerifierOptions {
  jwtSecret?: Uint8Array | undefined;
  /** `jwksCooldownMs`: the least time between two key-set fetches triggered by unknown key ids. */
  oidc?: { issuerUrl: string; audience: string; jwksCooldownMs?: number } | undefined;
}

/** A token that is present but not acceptable; the message is safe to show the caller. */
export class InvalidTokenError extends Error {
  readonly code = 'ERR_INVALID_TOKEN';
}

const CLOCK_TOLERANCE_S = 30;

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

  function discover(issuerUrl: string, cooldownDuration: number): Promise<Discovered> {
    discovery ??= (async () => {
      const url = new URL(`${issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`);
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (!response.ok) throw new Error(`OIDC discovery answered ${response.status}`);
      const doc = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (typeof doc.issuer !== 'string' || typeof doc.jwks_uri !== 'string') throw new Error('OIDC discovery document lacks issuer or jwks_uri');
      return { issuer: doc.issuer, jwks: createRemoteJWKSet(new URL(doc.jwks_uri), { cooldownDuration, timeoutDuration: 5000 }) };
    })();
    // A failed discovery is retried by the next request instead of being cached forever.
    discovery.catch(() => {
      discovery = undefined;
    });
    return discovery;
  }

  return async (token) => {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new InvalidTokenError('the bearer token is not a JWT');
    }
    try {
      let payload: JWTPayload;
      if (alg === 'HS256' && options.jwtSecret) {
        ({ payload } = await jwtVerify(token, options.jwtSecret, { algorithms: ['HS256'], clockTolerance: CLOCK_TOLERANCE_S }));
      } else if (options.oidc && alg !== undefined && !alg.startsWith('HS') && alg !== 'none') {
        const { issuer, jwks } = await discover(options.oidc.issuerUrl, options.oidc.jwksCooldownMs ?? 30_000);
        ({ payload } = await jwtVerify(token, jwks, { issuer, audience: options.oidc.audience, clockTolerance: CLOCK_TOLERANCE_S }));
      } else {
        throw new InvalidTokenError(`tokens signed with ${alg ?? 'no algorithm'} are not accepted`);
      }
      if (typeof payload.sub !== 'string' || payload.sub === '') throw new InvalidTokenError('the token has no subject');
      return { subject: payload.sub, claims: payload };
    } catch (err) {
      if (err instanceof InvalidTokenError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw new InvalidTokenError('the token has expired');
      if (err instanceof joseErrors.JOSEError) throw new InvalidTokenError('the token could not be verified');
      throw err;
    }
  };
}
