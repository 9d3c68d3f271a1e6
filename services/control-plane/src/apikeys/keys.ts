import { hash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const RANDOM_LENGTH = 32;
export const CHECKSUM_LENGTH = 6;

/** Unbiased random base62 characters (rejection sampling over bytes). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  return c;
});

/** CRC-32 (IEEE) of an ASCII string: the key body is base62, so each character is one byte. */
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = (crc >>> 8) ^ (CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] as number);
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(random: string): string {
  let n = crc32(random);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** `<prefix>_` + 32 random base62 characters + a 6-character CRC32 checksum, so scanners can recognise leaked keys. */
export function generateKey(prefix: string): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${prefix}_${random}${checksum(random)}`;
}

/** True when `key` has our shape and its checksum matches (cheap rejection before any lookup). */
export function isWellFormedKey(prefix: string, key: string): boolean {
  if (!key.startsWith(`${prefix}_`)) return false;
  const body = key.slice(prefix.length + 1);
  if (body.length < RANDOM_LENGTH + CHECKSUM_LENGTH || !/^[0-9A-Za-z]+$/.test(body)) return false;
  return checksum(body.slice(0, -CHECKSUM_LENGTH)) === body.slice(-CHECKSUM_LENGTH);
}

/**
 * A key's identity: the hex SHA-256 of its value. Keys are high-entropy, so a plain hash is
 * enough; it indexes the keys, keys the request budget, names revoked keys and is annotated on
 * the Secret, so nothing but the Secret's data ever holds the key itself.
 */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A username in label-value syntax (<= 63 characters of [A-Za-z0-9._-], alphanumeric at both ends). */
export function toLabelValue(value: string): string {
  const cleaned = value
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/[^A-Za-z0-9]+$/, '');
  return cleaned;
}

/** The longest lifetime a key may be given (expiresIn, APIKEY_MAX_TTL): a hundred years is "never" enough. */
export const MAX_KEY_TTL_MS = 36_500 * 86_400_000;
export const MAX_KEY_TTL_TEXT = '36500d';
