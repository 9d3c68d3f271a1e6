import type { ApiKeyIdentity } from '../apikeys/store.js';

export type AuthMethod = 'none' | 'apikey' | 'oidc' | 'basic';

/** Who made a request. `role` is undefined for an authenticated caller without a mapped role. */
export interface Principal {
  /** Stable identifier: the token subject, the API key's name or the Basic user. */
  userId: string;
  username: string;
  role: string | undefined;
  method: AuthMethod;
  /**
   * The API key that authenticated the request: what its request budget is keyed by, and what a
   * revocation names. A name alone is not enough: a key revoked and created again keeps it.
   */
  apiKey?: ApiKeyIdentity;
  /** When the credential stops being valid (a bearer token's `exp`, in ms): what a long-lived console is closed at. */
  expiresAt?: number;
  /** SHA-256 of the panel session a cookie request came with: what the feed and consoles close on when it ends. */
  sessionHash?: string;
}

/** A credential that is present but not acceptable; the message is safe to show the caller. */
export class InvalidCredentialError extends Error {
  readonly code = 'ERR_INVALID_CREDENTIAL';
}
