import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ApiKeyIdentity } from '../apikeys/store.js';
import { ServiceUnavailable, withRetryAfter } from '../errors.js';
import type { SharedRedis } from '../redis/shared.js';

/** The panel's session cookie: HttpOnly, SameSite=Strict, on the folder that holds `panel/` and `api/`. */
export const PANEL_COOKIE = 'gsp_panel';

/**
 * A Basic session: its user, and the version of the credential it was signed in with
 * (`basicCredentialVersion`, never the password), both checked against the configuration on each
 * request, so that a changed password ends it.
 */
export interface BasicSessionRecord {
  method: 'basic';
  user: string;
  credential: string;
  expiresAt: number;
}

/**
 * How a session's principal is found again on each request: a Basic session by its user and
 * credential version (against the configuration then), an API-key session by its key (which must
 * still be current), an OIDC session by what its ID token said. `expiresAt` (ms) is when the
 * session ends in any case.
 */
export type SessionRecord =
  | BasicSessionRecord
  | { method: 'apikey'; apiKey: ApiKeyIdentity; expiresAt: number }
  | { method: 'oidc'; userId: string; username: string; role: string | undefined; expiresAt: number };

/** What a sign-in asks to keep: the sessions plugin adds the Basic credential's version. */
export type NewSessionRecord = Exclude<SessionRecord, BasicSessionRecord> | Omit<BasicSessionRecord, 'credential'>;

export interface FoundSession {
  /** SHA-256 of the id (hex): what is stored, logged and published, never the id. */
  hash: string;
  record: SessionRecord;
}

/** An OIDC sign-in under way, kept until its callback (single use, at most LOGIN_TTL_MS). */
export interface PendingLogin {
  nonce: string;
  codeVerifier: string;
  /** Where to send the browser once signed in: a URL under the panel. */
  returnTo: string;
}

export const LOGIN_TTL_MS = 10 * 60_000;

function parseLogin(text: string): PendingLogin | undefined {
  try {
    const login = JSON.parse(text) as PendingLogin;
    const valid = [login.nonce, login.codeVerifier, login.returnTo].every((v) => typeof v === 'string');
    return valid ? login : undefined;
  } catch {
    return undefined;
  }
}

/** Told of each session that ended, on this replica or another: its hash and why. */
export type EndedListener = (hash: string, reason: string) => void;

/** 32 random bytes, base64url: what the cookie holds. */
const ID_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export const sessionHashOf = (id: string): string => createHash('sha256').update(id).digest('hex');

function parseRecord(text: string): SessionRecord | undefined {
  try {
    const record = JSON.parse(text) as SessionRecord;
    if (typeof record.expiresAt !== 'number') return undefined;
    if (record.method === 'basic') return typeof record.user === 'string' ? record : undefined;
    if (record.method === 'apikey') return typeof record.apiKey?.sha256 === 'string' ? record : undefined;
    if (record.method === 'oidc') return typeof record.userId === 'string' ? record : undefined;
    return undefined;
  } catch {
    return undefined;
  }
}

const unavailable = () =>
  withRetryAfter(
    new ServiceUnavailable('panel sessions cannot be checked right now (Redis is not answering); try again shortly'),
    2,
  );

/**
 * The panel's sessions: in Redis when REDIS_URL is set (`<prefix>panel:session:<sha256(id)>`,
 * expiring with the session, so every replica sees each one and a sign-out or revocation on one
 * ends it on all), else in this replica's memory (a restart signs everyone out). While Redis is
 * down a cookie cannot be checked: a 503, never a fallback that another replica would not share.
 * Ends are published on `<prefix>panel:session-ended`, so that every replica closes what the
 * session has open (consoles, the live feed).
 */
export class PanelSessionStore {
  private readonly local = new Map<string, { record: SessionRecord; timer: NodeJS.Timeout }>();
  private readonly logins = new Map<string, { login: PendingLogin; timer: NodeJS.Timeout }>();
  private readonly listeners = new Set<EndedListener>();
  private readonly replica = randomUUID();
  private subscriber: Redis | undefined;

  constructor(private readonly redis: SharedRedis | undefined) {}

  private keyOf(hash: string): string {
    return `${this.redis?.keyPrefix ?? ''}panel:session:${hash}`;
  }

  private loginKeyOf(hash: string): string {
    return `${this.redis?.keyPrefix ?? ''}panel:login:${hash}`;
  }

  private get channel(): string {
    return `${this.redis?.keyPrefix ?? ''}panel:session-ended`;
  }

  /** Subscribes to the ends published by the other replicas (with Redis). */
  async start(): Promise<void> {
    if (this.redis === undefined) return;
    const subscriber = this.redis.client.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, text: string) => {
      try {
        const { hash, reason, from } = JSON.parse(text) as { hash?: unknown; reason?: unknown; from?: unknown };
        if (from !== this.replica && typeof hash === 'string' && typeof reason === 'string') this.emit(hash, reason);
      } catch {
        // Not ours to read.
      }
    });
    await subscriber.subscribe(this.channel).catch(() => undefined);
  }

  async stop(): Promise<void> {
    for (const { timer } of [...this.local.values(), ...this.logins.values()]) clearTimeout(timer);
    this.local.clear();
    this.logins.clear();
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /** A new session holding `record`; its id, for the cookie (only its hash is stored). */
  async create(record: SessionRecord): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const hash = sessionHashOf(id);
    const ttlMs = Math.max(1, record.expiresAt - Date.now());
    const redis = this.usableRedis();
    if (redis === undefined) {
      const timer = setTimeout(() => this.local.delete(hash), Math.min(ttlMs, 2 ** 31 - 1));
      timer.unref();
      this.local.set(hash, { record, timer });
      return id;
    }
    await this.command(() => redis.client.set(this.keyOf(hash), JSON.stringify(record), 'PX', ttlMs));
    return id;
  }

  /** The session of cookie value `id`, if it exists and has not ended. */
  async find(id: string): Promise<FoundSession | undefined> {
    if (!ID_FORMAT.test(id)) return undefined;
    const hash = sessionHashOf(id);
    const redis = this.usableRedis();
    let record: SessionRecord | undefined;
    if (redis === undefined) record = this.local.get(hash)?.record;
    else {
      const text = await this.command(() => redis.client.get(this.keyOf(hash)));
      record = text === null ? undefined : parseRecord(text);
    }
    if (record === undefined || record.expiresAt <= Date.now()) return undefined;
    return { hash, record };
  }

  /** Whether the session `hash` still exists (a console ticket issued to it is worth nothing once it ended). */
  async alive(hash: string): Promise<boolean> {
    const redis = this.usableRedis();
    if (redis === undefined) return this.local.has(hash);
    return (await this.command(() => redis.client.exists(this.keyOf(hash)))) === 1;
  }

  /** Ends the session `hash` everywhere (sign-out, a revoked key): deleted, and the end published. */
  async end(hash: string, reason: string): Promise<void> {
    const held = this.local.get(hash);
    if (held !== undefined) {
      clearTimeout(held.timer);
      this.local.delete(hash);
    }
    const redis = this.usableRedis();
    if (redis !== undefined) {
      await this.command(() => redis.client.del(this.keyOf(hash)));
      const message = JSON.stringify({ hash, reason, from: this.replica });
      await this.command(() => redis.client.publish(this.channel, message));
    }
    this.emit(hash, reason);
  }

  /** Keeps the OIDC sign-in started with `state` until its callback takes it. */
  async saveLogin(state: string, login: PendingLogin): Promise<void> {
    const hash = sessionHashOf(state);
    const redis = this.usableRedis();
    if (redis !== undefined) {
      await this.command(() => redis.client.set(this.loginKeyOf(hash), JSON.stringify(login), 'PX', LOGIN_TTL_MS));
      return;
    }
    const timer = setTimeout(() => this.logins.delete(hash), LOGIN_TTL_MS);
    timer.unref();
    this.logins.set(hash, { login, timer });
  }

  /** The sign-in started with `state`, consumed: a callback is answered once. */
  async takeLogin(state: string): Promise<PendingLogin | undefined> {
    const hash = sessionHashOf(state);
    const redis = this.usableRedis();
    if (redis !== undefined) {
      const text = await this.command(() => redis.client.getdel(this.loginKeyOf(hash)));
      return text === null ? undefined : parseLogin(text);
    }
    const held = this.logins.get(hash);
    if (held === undefined) return undefined;
    clearTimeout(held.timer);
    this.logins.delete(hash);
    return held.login;
  }

  /** Tells `listener` of every session that ends; returns how to stop. */
  onEnded(listener: EndedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the listeners of this replica that `hash` ended (also for ends found here: an expiry, a revoked key). */
  emit(hash: string, reason: string): void {
    for (const listener of [...this.listeners]) listener(hash, reason);
  }

  /** Redis when it is configured; a 503 when it is configured but not answering. */
  private usableRedis(): SharedRedis | undefined {
    if (this.redis === undefined) return undefined;
    if (!this.redis.health.usable()) throw unavailable();
    return this.redis;
  }

  private async command<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      this.redis?.health.failed(err as Error);
      throw unavailable();
    }
  }
}
