import { BlockList, isIP } from 'node:net';
import { ConfigError, nonEmpty } from './config.js';
import type { Env } from './config.js';

/** The address ranges known by name (as proxy-addr, Express and Fastify name them). */
const NAMED_RANGES: ReadonlyMap<string, readonly string[]> = new Map([
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['linklocal', ['169.254.0.0/16', 'fe80::/10']],
  ['uniquelocal', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
]);

const familyOf = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** One entry of a trust list: an address, an address/prefix length, or a named range. */
function isProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', bits, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * `TRUST_PROXY`: `false` (the default: forwarded headers are ignored), `true` (every peer is a
 * proxy), or a comma list of proxy addresses, CIDRs and the named ranges `loopback`, `linklocal`,
 * `uniquelocal`. Each entry is checked here, so a typo stops the boot with a message naming the
 * variable rather than an error from inside Fastify.
 */
export function trustProxyVar(env: Env, name = 'TRUST_PROXY'): boolean | string {
  const raw = nonEmpty(env, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isProxyEntry(entry));
  if (bad !== undefined)
    throw new ConfigError(
      name,
      'must be true, false or a comma list of proxy addresses, CIDRs, loopback, linklocal or uniquelocal; ' +
        `${JSON.stringify(bad)} is none of these`,
    );
  return entries.join(',');
}

/** Whether a peer at `address` is a proxy whose forwarded headers are believed. */
export type ProxyTrust = (address: string | undefined) => boolean;

/**
 * The one test of "is this peer a trusted proxy" for a `trustProxyVar` value: Fastify asks it
 * (request.ip, protocol, host), and so does a route reading another forwarded header.
 */
export function proxyTrust(trustProxy: boolean | string): ProxyTrust {
  if (typeof trustProxy === 'boolean') return () => trustProxy;
  const list = new BlockList();
  for (const entry of trustProxy.split(','))
    for (const range of NAMED_RANGES.get(entry) ?? [entry]) {
      const [address = '', bits] = range.split('/');
      if (bits === undefined) list.addAddress(address, familyOf(address));
      else list.addSubnet(address, Number(bits), familyOf(address));
    }
  // An IPv4 peer on a dual-stack socket (`::ffff:10.0.0.1`) matches the IPv4 ranges too.
  return (address) => address !== undefined && isIP(address) !== 0 && list.check(address, familyOf(address));
}

// Path segments of unreserved and sub-delimiter characters; no `%`, so no encoded `..` either.
const PREFIX = /^(\/[A-Za-z0-9._~!$&'()*+;=:@-]+)+$/;
export const FORWARDED_PREFIX_MAX_LENGTH = 256;

/**
 * The path prefix a proxy stripped, from its `X-Forwarded-Prefix` (Traefik's StripPrefix sends
 * it, nginx can): `/gsp`, without a trailing `/`; `''` when absent or not a plain path (no
 * `..`, query, fragment or control character). Read it only from a trusted proxy.
 */
export function forwardedPrefix(header: string | string[] | undefined): string {
  // Several proxies: the last one's, as Fastify reads X-Forwarded-Proto and -Host.
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  const value = (joined.split(',').at(-1) ?? '').trim().replace(/\/+$/, '');
  if (value.length > FORWARDED_PREFIX_MAX_LENGTH || !PREFIX.test(value)) return '';
  return value.split('/').some((segment) => segment === '.' || segment === '..') ? '' : value;
}
