import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcrypt';
import type { BasicConfig } from '../config.js';
import { InvalidCredentialError } from './principal.js';
import type { Principal } from './principal.js';

const BCRYPT_COST = 10;
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 1000;

export interface BasicVerifier {
  verify(user: string, password: string): Promise<Principal>;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * HTTP Basic against one configured user. A plaintext password is hashed here and dropped;
 * successful checks are remembered for at most a minute under an HMAC of the credential (with
 * a key that never leaves this process), so repeated requests skip bcrypt's ~60 ms.
 */
export async function createBasicVerifier(config: BasicConfig): Promise<BasicVerifier> {
  const hash = config.passwordHash ?? (await bcrypt.hash(config.password as string, BCRYPT_COST));
  const userDigest = digest(config.user);
  const cacheKey = randomBytes(32);
  const verified = new Map<string, number>();
  // Concurrent requests with the same credential share one bcrypt compare instead of queueing 50 of them.
  const inflight = new Map<string, Promise<boolean>>();
  const principal: Principal = { userId: config.user, username: config.user, role: config.role, method: 'basic' };

  return {
    async verify(user, password) {
      // A Basic user id cannot contain a colon, so `user:password` is unambiguous.
      const key = createHmac('sha256', cacheKey).update(`${user}:${password}`).digest('base64url');
      const now = Date.now();
      const until = verified.get(key);
      if (until !== undefined && until > now) return principal;
      if (until !== undefined) verified.delete(key);
      let check = inflight.get(key);
      if (check === undefined) {
        // Compare digests so the comparison takes the same time whatever the lengths.
        const userOk = timingSafeEqual(digest(user), userDigest);
        check = bcrypt.compare(password, hash).then((passwordOk) => userOk && passwordOk);
        inflight.set(key, check);
        void check.finally(() => inflight.delete(key)).catch(() => {});
      }
      if (!(await check)) throw new InvalidCredentialError('the user name or password is wrong');
      if (verified.size >= CACHE_MAX_ENTRIES) verified.delete(verified.keys().next().value as string);
      verified.set(key, now + CACHE_TTL_MS);
      return principal;
    },
  };
}
