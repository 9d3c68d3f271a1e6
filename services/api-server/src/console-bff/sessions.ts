import { hash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { CONSOLE_SESSION_ENDED_EVENT, enqueueEvent } from '@gsp/platform-contract';
import type { ConsoleSessionEndedEvent, Queryable } from '@gsp/platform-contract';
import { withTransaction } from '../db/tx.js';

/** How long a sign-in may take at the identity provider before it must start again. */
export const LOGIN_TTL_MS = 10 * 60_000;

const sha256 = (value: string): string => hash('sha256', value, 'base64url');

/** What the database, the request and the bus know a session by: its id's SHA-256, never the id. */
export const sessionHash = sha256;

/** A random identifier, 256 bits, safe in a cookie and a URL. */
export const randomId = (): string => randomBytes(32).toString('base64url');

/** What the callback needs to finish a sign-in: the PKCE verifier, the nonce, where to go after. */
export interface PendingLogin {
  codeVerifier: string;
  nonce: string;
  returnTo: string;
}

/** Who starts a sign-in, for its budget: the SHA-256 of the client's address, and how many it may have under way. */
export interface LoginBudget {
  client: string;
  limit: number;
}

/** The SHA-256 of a client address: what `console_logins` keeps of who started a sign-in. */
export const clientHash = sha256;

/**
 * Records a sign-in under way, unless its client already has `budget.limit` under way: then nothing
 * is written, and the answer is how long (ms) until the client's oldest one expires. 0 once recorded.
 */
export async function recordLogin(
  pool: pg.Pool,
  state: string,
  login: PendingLogin,
  budget: LoginBudget,
): Promise<number> {
  return withTransaction(pool, async (tx) => {
    // One start per address at a time, so parallel starts cannot all pass the count.
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`console_logins:${budget.client}`]);
    const { rows } = await tx.query<{ pending: number; wait_ms: number | null }>(
      `SELECT count(*)::int AS pending, ceil(extract(epoch FROM min(expires_at) - now()) * 1000)::int AS wait_ms
       FROM console_logins WHERE client_hash = $1 AND expires_at > now()`,
      [budget.client],
    );
    const { pending = 0, wait_ms: waitMs = null } = rows[0] ?? {};
    if (pending >= budget.limit) return Math.max(1, waitMs ?? LOGIN_TTL_MS);
    await tx.query(
      `INSERT INTO console_logins (state_hash, code_verifier, nonce, return_to, client_hash, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond')`,
      [sha256(state), login.codeVerifier, login.nonce, login.returnTo, budget.client, LOGIN_TTL_MS],
    );
    return 0;
  });
}

/** Deletes the sign-ins nobody came back for and the sessions past their end; how many of each. */
export async function sweepExpired(db: Queryable): Promise<{ logins: number; sessions: number }> {
  const logins = await db.query('DELETE FROM console_logins WHERE expires_at <= now()');
  const sessions = await db.query('DELETE FROM console_sessions WHERE expires_at <= now()');
  return { logins: logins.rowCount ?? 0, sessions: sessions.rowCount ?? 0 };
}

/** Takes the sign-in `state` names: once only, and not after it expired. */
export async function takeLogin(db: Queryable, state: string): Promise<PendingLogin | undefined> {
  const { rows } = await db.query<{ code_verifier: string; nonce: string; return_to: string; live: boolean }>(
    `DELETE FROM console_logins WHERE state_hash = $1
     RETURNING code_verifier, nonce, return_to, expires_at > now() AS live`,
    [sha256(state)],
  );
  const row = rows[0];
  if (row === undefined || !row.live) return undefined;
  return { codeVerifier: row.code_verifier, nonce: row.nonce, returnTo: row.return_to };
}

/** A live console session: whom it names, what to call them, when it ends, and its id's SHA-256. */
export interface BffSession {
  subject: string;
  /** For display (see `displayName`); the subject for sessions begun before names were kept. */
  name: string;
  expiresAt: Date;
  idHash: string;
}

/** Starts a session for `subject` ending at `expiresAt`; the id returned goes in the cookie only. */
export async function createSession(
  db: Queryable,
  user: { subject: string; name: string },
  expiresAt: Date,
): Promise<string> {
  const id = randomId();
  await db.query('INSERT INTO console_sessions (id_hash, subject, name, expires_at) VALUES ($1, $2, $3, $4)', [
    sha256(id),
    user.subject,
    user.name,
    expiresAt,
  ]);
  return id;
}

/** The live session `id` names (one primary-key read, no cache: a sign-out anywhere counts at once). */
export async function readSession(db: Queryable, id: string): Promise<BffSession | undefined> {
  const idHash = sha256(id);
  const { rows } = await db.query<{ subject: string; name: string | null; expires_at: Date }>(
    'SELECT subject, name, expires_at FROM console_sessions WHERE id_hash = $1 AND expires_at > now()',
    [idHash],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return { subject: row.subject, name: row.name ?? row.subject, expiresAt: row.expires_at, idHash };
}

/** Which of these session id hashes name live sessions (a stream re-checks its own once subscribed). */
export async function liveSessions(db: Queryable, idHashes: readonly string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ id_hash: string }>(
    'SELECT id_hash FROM console_sessions WHERE id_hash = ANY($1::text[]) AND expires_at > now()',
    [idHashes],
  );
  return new Set(rows.map((row) => row.id_hash));
}

/**
 * Ends the session `id` names, for every replica: the row goes, and in the same transaction an
 * outbox event announces it, so the streams it opened close on whichever replica holds them. A
 * cookie naming no session announces nothing. Every early end of a session goes through here
 * (expired rows are only swept: their streams closed at the expiry).
 */
export async function endSession(pool: pg.Pool, id: string): Promise<void> {
  const idHash = sha256(id);
  await withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query('DELETE FROM console_sessions WHERE id_hash = $1', [idHash]);
    if (rowCount === 0) return;
    const event: ConsoleSessionEndedEvent = { sessionHash: idHash };
    await enqueueEvent(tx, CONSOLE_SESSION_ENDED_EVENT, `console-session:${idHash}`, event);
  });
}
