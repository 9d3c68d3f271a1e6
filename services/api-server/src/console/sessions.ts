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

/** Records a sign-in under way, and clears sign-ins and sessions past their time. */
export async function recordLogin(db: Queryable, state: string, login: PendingLogin): Promise<void> {
  await db.query('DELETE FROM console_logins WHERE expires_at < now()');
  await db.query('DELETE FROM console_sessions WHERE expires_at < now()');
  await db.query(
    `INSERT INTO console_logins (state_hash, code_verifier, nonce, return_to, expires_at)
     VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')`,
    [sha256(state), login.codeVerifier, login.nonce, login.returnTo, LOGIN_TTL_MS],
  );
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
export interface ConsoleSession {
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
export async function readSession(db: Queryable, id: string): Promise<ConsoleSession | undefined> {
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
