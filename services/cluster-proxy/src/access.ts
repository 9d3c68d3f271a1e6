import { hash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, errors as joseErrors } from 'jose';
import type { FlagsClient } from '@gsp/flags-client';
import { TtlCache } from '@gsp/service-kit';
import {
  CLI_ACCESS_DISABLED,
  cliAccessDisabledMessage,
  hasControlCharacters,
  KUBECONFIG_AUDIENCE,
  KUBECONFIG_ISSUER,
} from '@gsp/platform-contract';

export type StaleMode = 'best_effort' | 'strict';

export interface SwitchDecision {
  allowed: boolean;
  /** Why access is refused, written for the kubectl user. */
  message: string;
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
      return { allowed: false, message: `${CLI_ACCESS_DISABLED} for cluster ${clusterId} (${why})` };
    }
    if (e.value) return { allowed: true, message: '' };
    // `provider` answers only flags outside the registry; cli_access.enabled is in it.
    const source = e.source === 'provider' ? 'default' : e.source;
    return { allowed: false, message: cliAccessDisabledMessage(clusterId, source, 'the proxy') };
  };
}

export class AccessDenied extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessDenied';
  }
}

/** Verified tokens are remembered this long at most, and never past their own expiry. */
const VERIFIED_TTL_MS = 60_000;
const VERIFIED_MAX_ENTRIES = 10_000;

/**
 * Verifies kubeconfig tokens against the API server's JWKS; returns the caller's subject.
 * An ES256 check costs 100-200 µs of CPU, more than the rest of a proxied GET, so verified
 * tokens are remembered (keyed by their SHA-256, never the token itself) for up to a minute.
 */
export function createTokenVerifier(apiServerUrl: string): (token: string, clusterId: string) => Promise<string> {
  const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', apiServerUrl), { cooldownDuration: 5_000 });
  const verified = new TtlCache<string, { subject: string; cluster: unknown }>({
    ttlMs: VERIFIED_TTL_MS,
    maxEntries: VERIFIED_MAX_ENTRIES,
  });
  return async (token, clusterId) => {
    const key = hash('sha256', token, 'base64url');
    let entry = verified.get(key);
    if (entry === undefined) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          audience: KUBECONFIG_AUDIENCE,
          issuer: KUBECONFIG_ISSUER,
          algorithms: ['ES256'],
        }));
      } catch (err) {
        if (err instanceof joseErrors.JOSEError) throw new AccessDenied(`invalid token: ${err.message}`);
        throw err;
      }
      if (typeof payload.sub !== 'string' || payload.sub === '') throw new AccessDenied('the token names no subject');
      // The subject becomes Impersonate-User at the cluster: a line break in it would be a header of its own.
      if (
        hasControlCharacters(payload.sub) ||
        (typeof payload.cluster === 'string' && hasControlCharacters(payload.cluster))
      ) {
        throw new AccessDenied('the token carries control characters in its claims');
      }
      entry = { subject: payload.sub, cluster: payload.cluster };
      verified.set(key, entry, (payload.exp ?? Infinity) * 1000);
    }
    if (entry.cluster !== clusterId) throw new AccessDenied('this token was issued for another cluster');
    return entry.subject;
  };
}
