import { Code, ConnectError } from '@connectrpc/connect';
import { RETRY_AT_HEADER } from '@gsp/tunnel-proto';
import { createRemoteJWKSet, jwtVerify, errors as joseErrors } from 'jose';
import type { FlagsClient } from '@gsp/flags-client';
import { toleranceSeconds, TtlCache } from '@gsp/service-kit';
import {
  CLI_ACCESS_DISABLED,
  cliAccessDisabledMessage,
  hasControlCharacters,
  KUBECONFIG_AUDIENCE,
  KUBECONFIG_ISSUER,
  subjectProblem,
} from '@gsp/platform-contract';

export type StaleMode = 'best_effort' | 'strict';

export interface SwitchDecision {
  allowed: boolean;
  /** Why access is refused, written for the kubectl user. */
  message: string;
  /** Epoch ms: the stored "off" that decided expires then (the agent is told to try again at that moment). */
  until?: number | undefined;
}

/**
 * The refusal an agent hears while the switch is off, with the moment it expires when it does, so
 * an agent deep in its backoff comes back then rather than up to AGENT_BACKOFF_MAX later.
 */
export function tunnelRefusal(decision: SwitchDecision): ConnectError {
  const metadata =
    decision.until === undefined ? undefined : { [RETRY_AT_HEADER]: new Date(decision.until).toISOString() };
  return new ConnectError(decision.message, Code.Unavailable, metadata);
}

/**
 * The kill switch as the proxy applies it. `strict` treats a value that could not be
 * confirmed with the store as off (an env pin is always known); `best_effort` serves it.
 */
export function createSwitch(flags: FlagsClient, staleMode: StaleMode): (clusterId: string) => Promise<SwitchDecision> {
  return async (clusterId) => {
    const e = await flags.cliAccess({ clusterId });
    if (!e.envPinned && e.stale && staleMode === 'strict') {
      const why = 'the flag store cannot be read and the proxy runs in strict mode';
      return { allowed: false, message: `${CLI_ACCESS_DISABLED} for cluster ${clusterId}: ${why}` };
    }
    if (e.value) return { allowed: true, message: '' };
    // `provider` answers only flags outside the registry; cli_access.enabled is in it.
    const source = e.source === 'provider' ? 'default' : e.source;
    return {
      allowed: false,
      message: cliAccessDisabledMessage(clusterId, source, 'the proxy', e.record),
      until: e.record?.expiresAt ?? undefined,
    };
  };
}

export class AccessDenied extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessDenied';
  }
}

/** The proxy cannot fetch the API server's signing keys: not the caller's fault, worth retrying. */
export class KeysUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeysUnavailable';
  }
}

/** Verified tokens are remembered this long at most, and never past their own expiry. */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX_ENTRIES = 10_000;

/** Where a kubectl user gets a token this proxy accepts: what every refusal of a token ends with. */
const downloadHint = (clusterId: string, kubeconfig = 'a kubeconfig'): string =>
  `download ${kubeconfig} for cluster ${clusterId} from the platform API server ` +
  `(GET /api/v1/tenants/{tenant}/clusters/${clusterId}/kubeconfig)`;

/**
 * What a failed `jwtVerify` means to a kubectl user, in words they can act on: jose's own text
 * ("Invalid Compact JWS", "alg Header Parameter value not allowed") never reaches them.
 */
export function tokenRefusal(err: unknown, clusterId: string): Error {
  if (!(err instanceof joseErrors.JOSEError)) return err instanceof Error ? err : new Error(String(err));
  const hint = downloadHint(clusterId);
  switch (err.code) {
    case 'ERR_JWT_EXPIRED': {
      const exp = (err as joseErrors.JWTExpired).payload.exp;
      const when = typeof exp === 'number' ? ` at ${new Date(exp * 1000).toISOString()}` : '';
      return new AccessDenied(`the token expired${when}: ${downloadHint(clusterId, 'a new kubeconfig')}`);
    }
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if ((err as joseErrors.JWTClaimValidationFailed).claim === 'nbf')
        return new AccessDenied(`the token is not valid yet (check this computer's clock), or ${hint}`);
      break;
    case 'ERR_JWKS_NO_MATCHING_KEY':
      // Signed by a key the API server no longer publishes (rotated, or regenerated at a restart).
      return new AccessDenied(`the token was signed with a key the platform no longer uses: ${hint}`);
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return new KeysUnavailable("the proxy cannot read the API server's signing keys; try again shortly");
  }
  // Not a JWT, another issuer's or audience's, another algorithm, a bad signature.
  return new AccessDenied(`this is not a kubeconfig token for this proxy: ${hint}`);
}

export interface TokenVerifierOptions {
  /** Where `/.well-known/jwks.json` is (`API_SERVER_URL`). */
  apiServerUrl: string;
  /** `AUTH_CLOCK_TOLERANCE`. */
  clockToleranceMs: number;
}

/**
 * Verifies kubeconfig tokens against the API server's JWKS; returns the caller's subject.
 * An ES256 check costs 100-200 µs of CPU, more than the rest of a proxied GET, so verified
 * tokens are remembered for up to a minute, keyed by the token itself: a SHA-256 of it per request
 * cost more CPU than the lookup it keyed, and the token is in this process's memory either way (it
 * arrives in every request's headers). The cache is bounded (VERIFIED_MAX_ENTRIES) and never logged.
 */
export function createTokenVerifier(
  options: TokenVerifierOptions,
): (token: string, clusterId: string) => Promise<string> {
  const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', options.apiServerUrl), { cooldownDuration: 5_000 });
  const clockTolerance = toleranceSeconds(options.clockToleranceMs);
  const verified = new TtlCache<string, { subject: string; cluster: unknown }>({
    ttlMs: VERIFIED_TTL_MS,
    maxEntries: VERIFIED_MAX_ENTRIES,
  });
  return async (token, clusterId) => {
    let entry = verified.get(token);
    if (entry === undefined) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          audience: KUBECONFIG_AUDIENCE,
          issuer: KUBECONFIG_ISSUER,
          algorithms: ['ES256'],
          clockTolerance,
        }));
      } catch (err) {
        throw tokenRefusal(err, clusterId);
      }
      if (typeof payload.sub !== 'string' || payload.sub === '') throw new AccessDenied('the token names no subject');
      // The subject becomes Impersonate-User at the cluster: a line break in it would be a header
      // of its own, and a `system:` name would be one of the cluster's own components.
      const problem = subjectProblem(payload.sub);
      if (problem !== undefined)
        throw new AccessDenied(`the token's subject cannot be impersonated at the cluster: ${problem}`);
      if (typeof payload.cluster === 'string' && hasControlCharacters(payload.cluster))
        throw new AccessDenied('the token carries control characters in its claims');
      entry = { subject: payload.sub, cluster: payload.cluster };
      // Kept until the token expires, then verified again, which refuses it once past the tolerance.
      verified.set(token, entry, (payload.exp ?? Infinity) * 1000);
    }
    if (entry.cluster !== clusterId) throw new AccessDenied('this token was issued for another cluster');
    return entry.subject;
  };
}
