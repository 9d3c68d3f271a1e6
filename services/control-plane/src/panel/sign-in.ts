import type { Principal } from '../auth/principal.js';
import type { NewSessionRecord } from './sessions.js';

/** The `Authorization` value of a Basic sign-in, as the chain's Basic method reads it. */
export function basicHeader(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/**
 * What a session signed in by `principal` (Basic or API key) keeps to find it again, ending
 * `ttlMs` from now: a Basic user is checked against the configuration on each request (with the
 * credential's version, which the sessions plugin adds), an API key against the key index (a
 * revoked or expired key ends the session).
 */
export function recordOf(principal: Principal, ttlMs: number, now = Date.now()): NewSessionRecord {
  const expiresAt = now + ttlMs;
  if (principal.method === 'apikey' && principal.apiKey !== undefined)
    return { method: 'apikey', apiKey: principal.apiKey, expiresAt };
  if (principal.method === 'basic') return { method: 'basic', user: principal.userId, expiresAt };
  const { userId, username, role } = principal;
  return { method: 'oidc', userId, username, role, expiresAt: Math.min(expiresAt, principal.expiresAt ?? expiresAt) };
}
