/**
 * Development credentials for the API server of `npm start`: the HS256 secret it keeps in its
 * data directory and the tokens signed with it (by the runner for `dev-admin`, and by
 * `npm run token` for any other subject).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { ConfigError, nonEmpty } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';
import { DEFAULT_JWT_AUDIENCE } from '@gsp/api-server';

/** Where `npm start` keeps its state (embedded PostgreSQL, kube-lite, secrets): `DEV_DATA_DIR`, else `.data`. */
export function devDataDir(env: Env, root: string): string {
  return nonEmpty(env, 'DEV_DATA_DIR') ?? join(root, '.data');
}

/**
 * The secret in `<dataDir>/<name>`, made (`bytes` random bytes in base64url, mode 0600) on first
 * use so it survives restarts.
 */
export function persistentSecret(dataDir: string, name: string, bytes = 32): string {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(bytes).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export interface DevJwt {
  secret: string;
  audience: string;
}

/** The HS256 secret and audience: `AUTH_JWT_SECRET` and `AUTH_JWT_AUDIENCE` when set, as the API server reads them. */
export function devJwt(env: Env, dataDir: string, create: boolean): DevJwt {
  const audience = nonEmpty(env, 'AUTH_JWT_AUDIENCE') ?? DEFAULT_JWT_AUDIENCE;
  const fromEnv = nonEmpty(env, 'AUTH_JWT_SECRET');
  if (fromEnv !== undefined) return { secret: fromEnv, audience };
  const file = join(dataDir, 'dev-jwt-secret');
  if (!create && !existsSync(file)) {
    throw new ConfigError('DEV_DATA_DIR', `${file} does not exist: run npm start first, or set AUTH_JWT_SECRET`);
  }
  return { secret: persistentSecret(dataDir, 'dev-jwt-secret'), audience };
}

/**
 * An HS256 bearer token for `subject`, which the API server takes as that subject: it needs
 * `exp` and the configured `aud`, and an HS256 `sub` may not contain `#` (that names OIDC users).
 */
export async function signDevToken(jwt: DevJwt, subject: string, ttlMs = 12 * 3_600_000): Promise<string> {
  // The API server refuses these subjects; say so here rather than hand out a token that answers 401.
  if (subject === '' || subject.includes('#') || /\p{Cc}/u.test(subject)) {
    throw new Error(`a token subject must be non-empty, without "#" or control characters: ${JSON.stringify(subject)}`);
  }
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setAudience(jwt.audience)
    .setIssuedAt()
    .setExpirationTime(Math.floor((Date.now() + ttlMs) / 1000))
    .sign(new TextEncoder().encode(jwt.secret));
}
