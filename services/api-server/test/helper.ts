import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { waitUntil } from '@gsp/service-kit';
import { startRelay } from '@gsp/service-kit/testing/relay';
import { buildApp } from '../src/app.js';
import { DEFAULT_JWT_AUDIENCE, loadConfig } from '../src/config/index.js';

type Tap = { teardown(fn: () => unknown): void };

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long';
/** The `aud` of the HS256 tokens `token` signs: the server's default, as `build` leaves AUTH_JWT_AUDIENCE unset. */
export const JWT_AUDIENCE = DEFAULT_JWT_AUDIENCE;
export const PLATFORM_ADMIN = 'platform-root';

/** A schema of its own per test file, so files running in parallel never see each other's rows. */
export async function freshSchema(t: Tap): Promise<{ schema: string; url: string }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  t.teardown(async () => {
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    await c.query(`DROP SCHEMA ${schema} CASCADE`);
    await c.end();
  });
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { schema, url: url.toString() };
}

export interface Built {
  app: FastifyInstance;
  schema: string;
  databaseUrl: string;
}

/** Builds the API server against a fresh schema of the real PostgreSQL. */
export async function build(
  t: Tap,
  env: Record<string, string | undefined> = {},
  wrapUrl?: (url: string) => Promise<string>,
): Promise<Built> {
  const { schema, url: schemaUrl } = await freshSchema(t);
  const url = wrapUrl ? await wrapUrl(schemaUrl) : schemaUrl;
  const config = loadConfig({
    DATABASE_URL: url,
    AUTH_JWT_SECRET: JWT_SECRET,
    PLATFORM_ADMINS: PLATFORM_ADMIN,
    ...env,
  });
  const app = await buildApp(config, false);
  // Registered after freshSchema's, so it runs first: close the app before dropping its schema.
  t.teardown(() => app.close());
  await app.ready();
  return { app, schema, databaseUrl: url };
}

export async function token(
  subject: string,
  claims: Record<string, unknown> = {},
  expiresIn: string | number = '1h',
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setAudience(JWT_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(JWT_SECRET));
}

export async function bearer(subject: string): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await token(subject)}` };
}

type Role = 'admin' | 'operator' | 'viewer';

/** Puts `subject` into tenant `org` with `role` as the caller `headers` names; the answer, whatever its status. */
export const putMember = (
  app: FastifyInstance,
  org: string,
  subject: string,
  role: string,
  headers: Record<string, string>,
) => app.inject({ method: 'PUT', url: `/api/v1/tenants/${org}/members/${subject}`, headers, payload: { role } });

/** Creates tenant `org` with the given members (subject -> role) through the API. */
export async function seedTenant(app: FastifyInstance, org: string, members: Record<string, Role>): Promise<void> {
  const headers = await bearer(PLATFORM_ADMIN);
  for (const [subject, role] of Object.entries(members)) {
    const res = await putMember(app, org, subject, role, headers);
    if (res.statusCode !== 200) throw new Error(`seeding ${org}/${subject}: ${res.statusCode} ${res.body}`);
  }
}

export async function registerCluster(
  app: FastifyInstance,
  org: string,
  name: string,
): Promise<{ id: string; agentToken: string }> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/tenants/${org}/clusters`,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { name },
  });
  if (res.statusCode !== 201) throw new Error(`registering ${org}/${name}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A link a test breaks on purpose, between a client and a real server. */
export interface FaultyLink {
  /** Resets every connection and refuses new ones, the way a partition the OS notices does. */
  cut(): void;
  /**
   * Takes every byte and forwards none, in either direction, and closes nothing: a silent
   * partition. New connections are accepted and get nothing back either.
   */
  stall(): void;
  /** Delivers what a stall held back, in order (as TCP retransmission would), then relays as before. */
  restore(): void;
}

/** `url` behind service-kit's test relay, with a close held back by a stall like any byte. */
async function relayedUrl(t: Tap, original: string): Promise<FaultyLink & { url: string }> {
  const relay = await startRelay(t, original, { closeThroughStall: false });
  return {
    url: relay.url,
    cut: () => relay.cut(),
    stall: () => relay.stall(),
    restore() {
      relay.heal();
      relay.restore();
    },
  };
}

/**
 * A relay in front of PostgreSQL that a test can cut (connections reset, new ones refused, as in
 * a network partition) or stall (nothing answers, nothing closes, as with a hung server or a
 * silently dropped route).
 */
export const cuttableDatabaseUrl = (t: Tap, databaseUrl: string): Promise<FaultyLink & { url: string }> =>
  relayedUrl(t, databaseUrl);

/** The same relay in front of Redis. */
export const cuttableRedisUrl = (t: Tap, redisUrl: string): Promise<FaultyLink & { url: string }> =>
  relayedUrl(t, redisUrl);

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A Redis key and channel prefix of its own per test, so parallel files never cross. */
export function redisPrefix(): string {
  return `t${randomBytes(5).toString('hex')}:`;
}

/** Polls `check` every `everyMs` until it returns a value other than undefined (or false), or fails after `ms`. */
export const until = <T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  ms = 5000,
  everyMs = 5,
): Promise<T> => waitUntil(check, { timeoutMs: ms, intervalMs: everyMs, what });
