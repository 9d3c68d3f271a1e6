import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import bcrypt from 'bcrypt';
import { TtlCache } from '@gsp/service-kit';
import type { BasicConfig } from '../config/index.js';
import { InvalidCredentialError } from './principal.js';
import type { Principal } from './principal.js';

const BCRYPT_COST = 10;
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 1000;

export interface BasicVerifier {
  /** The principal when this client address proved these credentials in the last minute, without bcrypt. */
  known(user: string, password: string, address: string): Principal | undefined;
  verify(user: string, password: string, address: string): Promise<Principal>;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * HTTP Basic against one configured user. A plaintext password is hashed here and dropped;
 * successful checks are remembered for a minute after their last use under an HMAC of the
 * client address and the credential (with a key that never leaves this process), so repeated
 * requests skip bcrypt's ~60 ms.
 *
 * Remembered per address because a remembered credential passes the failed sign-in limit (its
 * holder is not locked out by someone else's failures): keyed by the credential alone, anyone
 * could try passwords against the cache at memory speed while the user is active.
 */
export async function createBasicVerifier(config: BasicConfig): Promise<BasicVerifier> {
  const hash = config.passwordHash ?? (await bcrypt.hash(config.password as string, BCRYPT_COST));
  const userDigest = digest(config.user);
  const cacheKey = randomBytes(32);
  const verified = new TtlCache<string, true>({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });
  const principal: Principal = { userId: config.user, username: config.user, role: config.role, method: 'basic' };
  // A Basic user id cannot contain a colon, nor an address a newline: the text is unambiguous.
  const keyOf = (user: string, password: string, address: string) =>
    createHmac('sha256', cacheKey).update(`${address}\n${user}:${password}`).digest('base64url');

  return {
    known(user, password, address) {
      const key = keyOf(user, password, address);
      if (verified.get(key) === undefined) return undefined;
      // A minute after its last use, not its first.
      verified.set(key, true);
      return principal;
    },
    async verify(user, password, address) {
      // Compare digests so the comparison takes the same time whatever the lengths.
      const userOk = timingSafeEqual(digest(user), userDigest);
      const passwordOk = await bcrypt.compare(password, hash);
      if (!(userOk && passwordOk)) throw new InvalidCredentialError('the user name or password is wrong');
      verified.set(keyOf(user, password, address), true);
      return principal;
    },
  };
}

const scryptAsync = promisify(scrypt) as (password: string, salt: string, length: number) => Promise<Buffer>;

/**
 * What a panel session signed in with Basic keeps of the credential, so that a session opened with
 * another user or password ends (as one of a revoked key does): the same value for the same
 * configuration after any restart, another one as soon as the user or password changes. Never the
 * password: with `AUTH_BASIC_PASSWORD_HASH`, a digest of the user and the bcrypt hash; with a
 * plaintext password, scrypt of it salted with the user, so that what Redis holds costs a guesser
 * as much per guess as the bcrypt hash in the configuration would.
 */
export async function basicCredentialVersion(config: BasicConfig): Promise<string> {
  if (config.passwordHash !== undefined)
    return createHash('sha256').update(`gsp-basic-hash\n${config.user}\n${config.passwordHash}`).digest('base64url');
  const derived = await scryptAsync(config.password as string, `gsp-basic-password\n${config.user}`, 32);
  return derived.toString('base64url');
}

/** The user and password of an `Authorization: Basic` header, or undefined when it is malformed. */
export function basicCredentials(header: string): { user: string; password: string } | undefined {
  const decoded = Buffer.from(/^Basic +(\S+)\s*$/i.exec(header)?.[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
