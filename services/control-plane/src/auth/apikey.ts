import { isWellFormedKey } from '../apikeys/keys.js';
import { hasExpired } from '../apikeys/store.js';
import type { ApiKeyRecord, ApiKeyStore } from '../apikeys/store.js';
import { InvalidCredentialError } from './principal.js';
import type { Principal } from './principal.js';

export interface ApiKeyVerifier {
  /** The principal of a current key, from the index: no work but a checksum and a hash. */
  known(key: string): Principal | undefined;
  verify(key: string): Promise<Principal>;
}

/**
 * `X-API-Key` against the informer's index of key Secrets: a key authenticates while its Secret
 * is there (confirmed) and its `expiresAt` has not passed. A malformed key (its checksum, its
 * prefix) is refused before any lookup. Each use is recorded on the Secret, at most every five
 * minutes per replica.
 */
export function createApiKeyVerifier(store: Pick<ApiKeyStore, 'lookup' | 'touch'>, prefix: string): ApiKeyVerifier {
  const recordOf = (key: string): ApiKeyRecord | undefined =>
    isWellFormedKey(prefix, key) ? store.lookup(key) : undefined;

  function principalOf(record: ApiKeyRecord): Principal {
    store.touch(record);
    const { name, role, sha256 } = record;
    return { userId: name, username: name, role, method: 'apikey', apiKey: { name, sha256 } };
  }

  return {
    known(key) {
      const record = recordOf(key);
      return record === undefined || hasExpired(record) ? undefined : principalOf(record);
    },
    async verify(key) {
      const record = recordOf(key);
      if (!record) throw new InvalidCredentialError('the API key is not valid');
      if (hasExpired(record)) throw new InvalidCredentialError('the API key has expired');
      return principalOf(record);
    },
  };
}
