/**
 * The development issuer as a service process of `npm start` (the runner starts it like the
 * others, configured only by environment): reads its configuration, listens, and closes on
 * SIGINT or SIGTERM.
 *
 * | variable | meaning |
 * |---|---|
 * | `PORT`, `HOST` | where it listens |
 * | `DEV_ISSUER_URL` | its issuer URL, as the API server's `AUTH_OIDC_ISSUER_URL` |
 * | `DEV_ISSUER_CLIENT_ID`, `DEV_ISSUER_CLIENT_SECRET` | the console's client |
 * | `DEV_ISSUER_REDIRECT_URI` | the console's `<CONSOLE_PUBLIC_URL>auth/callback` |
 * | `DEV_DATA_DIR` | where the users' passwords, the signing key and the cookie key are kept |
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ConfigError, nonEmpty, parsePort, parseUrl, readSecret, runService } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';
import { persistentSecret } from '../auth.js';
import { createIssuer } from './app.js';
import type { IssuerOptions } from './app.js';
import { devUsers } from './users.js';

interface IssuerConfig extends IssuerOptions {
  port: number;
  host: string;
}

function required<T>(name: string, value: T | undefined): T {
  if (value === undefined) throw new ConfigError(name, 'is required');
  return value;
}

/** The key that signs ID tokens, made on first use and kept, so tokens stay verifiable across restarts. */
function signingKey(dataDir: string): Record<string, unknown> {
  const file = join(dataDir, 'dev-issuer-signing-key.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: `dev-${Date.now().toString(36)}`, use: 'sig' };
  writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  return jwk;
}

function loadIssuerConfig(env: Env): IssuerConfig {
  const dataDir = required('DEV_DATA_DIR', nonEmpty(env, 'DEV_DATA_DIR'));
  return {
    port: parsePort(env, 'PORT', 8082),
    host: nonEmpty(env, 'HOST') ?? '127.0.0.1',
    issuer: required('DEV_ISSUER_URL', parseUrl(env, 'DEV_ISSUER_URL', ['http:', 'https:'])),
    clientId: required('DEV_ISSUER_CLIENT_ID', nonEmpty(env, 'DEV_ISSUER_CLIENT_ID')),
    clientSecret: required('DEV_ISSUER_CLIENT_SECRET', readSecret(env, 'DEV_ISSUER_CLIENT_SECRET')),
    redirectUri: required('DEV_ISSUER_REDIRECT_URI', parseUrl(env, 'DEV_ISSUER_REDIRECT_URI', ['http:', 'https:'])),
    users: devUsers(dataDir),
    signingKey: signingKey(dataDir),
    cookieKey: persistentSecret(dataDir, 'dev-issuer-cookie-key'),
  };
}

await runService(
  'dev-issuer',
  () => loadIssuerConfig(process.env),
  async (config) => {
    const server = createServer(createIssuer(config));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, resolve);
    });
    return {
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          // A browser's idle keep-alive connections would hold the close.
          server.closeAllConnections();
        }),
    };
  },
  { ports: (config) => ({ PORT: config.port }) },
);
