import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { setCookie } from '@gsp/service-kit';
import { basicCredentialVersion } from '../auth/basic.js';
import type { ApiKeyStore } from '../apikeys/store.js';
import type { Principal } from '../auth/principal.js';
import type { BasicConfig, PanelConfig } from '../config/index.js';
import { PANEL_COOKIE, PanelSessionStore } from '../panel/sessions.js';
import type { EndedListener, FoundSession, NewSessionRecord } from '../panel/sessions.js';

export const SESSION_ENDED =
  'the panel session has ended (signed out, revoked, expired or its password changed): sign in again';
export const KEY_REVOKED = 'the API key of the panel session was revoked or has expired';
export const BASIC_CHANGED = 'the Basic user or password the panel session was signed in with has changed';
export const SESSION_EXPIRED = 'the panel session has expired';

declare module 'fastify' {
  interface FastifyInstance {
    panelSessions: PanelSessions;
  }
}

export interface PanelSessions {
  /** A new session for `record` (a Basic one with this configuration's credential version); its `Set-Cookie` value. */
  create(record: NewSessionRecord): Promise<string>;
  /**
   * The principal of cookie value `id`, found again now; undefined when the session has ended (it is then ended
   * everywhere).
   */
  principalOf(id: string): Promise<Principal | undefined>;
  /** Whether the session `hash` has not ended. */
  alive(hash: string): Promise<boolean>;
  /** Ends the session of cookie value `id` on every replica (sign-out). */
  endById(id: string, reason: string): Promise<void>;
  /**
   * Tells `listener` of each session that ends (signed out on any replica, its key revoked, expired): its hash and
   * why.
   */
  onEnded(listener: EndedListener): () => void;
  /** The `Set-Cookie` value that deletes the cookie. */
  clearCookie(): string;
  /** The origin a cookie-authenticated request must come from (when it says where it comes from). */
  originOf(request: FastifyRequest): string;
  /** How long a Basic or API-key session lasts. */
  ttlMs: number;
  /** OIDC sign-ins under way, kept where the sessions are. */
  logins: Pick<PanelSessionStore, 'saveLogin' | 'takeLogin'>;
}

export interface PanelSessionsOptions {
  panel: PanelConfig;
  basic: BasicConfig | undefined;
}

/**
 * Sessions this replica has served, by hash, with the key of an API-key session: when the key is
 * revoked, or the session's time is up, what it holds open here (consoles, the live feed) is told.
 */
class Served {
  private readonly byHash = new Map<string, { sha256: string | undefined; timer: NodeJS.Timeout }>();

  constructor(private readonly ended: (hash: string, reason: string) => void) {}

  saw(hash: string, sha256: string | undefined, expiresAt: number): void {
    if (this.byHash.has(hash)) return;
    const timer = setTimeout(
      () => {
        this.byHash.delete(hash);
        this.ended(hash, SESSION_EXPIRED);
      },
      Math.min(Math.max(0, expiresAt - Date.now()), 2 ** 31 - 1),
    );
    timer.unref();
    this.byHash.set(hash, { sha256, timer });
  }

  forget(hash: string): void {
    const held = this.byHash.get(hash);
    if (held === undefined) return;
    clearTimeout(held.timer);
    this.byHash.delete(hash);
  }

  withKey(sha256: string): string[] {
    return [...this.byHash].filter(([, held]) => held.sha256 === sha256).map(([hash]) => hash);
  }

  clear(): void {
    for (const { timer } of this.byHash.values()) clearTimeout(timer);
    this.byHash.clear();
  }
}

/** The Basic user this replica is configured with, and its credential's version (`basicCredentialVersion`). */
interface CurrentBasic {
  config: BasicConfig;
  credential: string;
}

/** The principal a session stands for now; undefined when what it was signed in with no longer holds. */
function principalNow(
  app: { apikeys: Pick<ApiKeyStore, 'byHash'> },
  basic: CurrentBasic | undefined,
  found: FoundSession,
): Principal | undefined {
  const { hash, record } = found;
  const session = { sessionHash: hash, expiresAt: record.expiresAt };
  if (record.method === 'basic') {
    // A session from before the password changed (or from before versions were kept) has ended.
    if (basic === undefined || basic.config.user !== record.user || basic.credential !== record.credential)
      return undefined;
    const { config } = basic;
    return { userId: config.user, username: config.user, role: config.role, method: 'basic', ...session };
  }
  if (record.method === 'oidc') {
    const { userId, username, role } = record;
    return { userId, username, role, method: 'oidc', ...session };
  }
  const key = app.apikeys.byHash(record.apiKey.sha256);
  if (key === undefined) return undefined;
  const keyEnds = key.expiresAt === undefined ? Infinity : Date.parse(key.expiresAt);
  const { name, role, sha256 } = key;
  return {
    userId: name,
    username: name,
    role,
    method: 'apikey',
    apiKey: { name, sha256 },
    sessionHash: hash,
    expiresAt: Math.min(record.expiresAt, keyEnds),
  };
}

/** `app.panelSessions`: the panel's cookie sessions (src/panel/sessions.ts) and how a request's cookie is read. */
export default fp<PanelSessionsOptions>(
  async (app, { panel, basic }) => {
    const store = new PanelSessionStore(app.redis);
    const current =
      basic === undefined ? undefined : { config: basic, credential: await basicCredentialVersion(basic) };
    const served = new Served((hash, reason) => store.emit(hash, reason));
    store.onEnded((hash) => served.forget(hash));
    const cookie = (value: string, maxAgeSeconds: number) =>
      setCookie(PANEL_COOKIE, value, {
        path: panel.cookiePath,
        secure: panel.secureCookies,
        sameSite: 'Strict',
        maxAgeSeconds,
      });
    const stopRevoked = app.apikeys.onRevoked((key) => {
      for (const hash of served.withKey(key.sha256)) {
        served.forget(hash);
        store.emit(hash, KEY_REVOKED);
      }
    });
    await store.start();
    app.addHook('onClose', async () => {
      stopRevoked();
      served.clear();
      await store.stop();
    });

    app.decorate('panelSessions', {
      async create(record) {
        const id = await store.create(
          record.method === 'basic' ? { ...record, credential: current?.credential ?? '' } : record,
        );
        return cookie(id, Math.ceil((record.expiresAt - Date.now()) / 1000));
      },
      async principalOf(id) {
        const found = await store.find(id);
        if (found === undefined) return undefined;
        const principal = principalNow(app, current, found);
        if (principal === undefined) {
          await store.end(found.hash, found.record.method === 'basic' ? BASIC_CHANGED : KEY_REVOKED);
          return undefined;
        }
        served.saw(found.hash, principal.apiKey?.sha256, principal.expiresAt ?? found.record.expiresAt);
        return principal;
      },
      async endById(id, reason) {
        const found = await store.find(id);
        if (found !== undefined) await store.end(found.hash, reason);
      },
      alive: (hash) => store.alive(hash),
      onEnded: (listener) => store.onEnded(listener),
      clearCookie: () => cookie('', 0),
      originOf: (request) => panel.origin ?? `${request.protocol}://${request.host}`,
      ttlMs: panel.sessionTtlMs,
      logins: {
        saveLogin: (state, login) => store.saveLogin(state, login),
        takeLogin: (state) => store.takeLogin(state),
      },
    } satisfies PanelSessions);
  },
  { name: 'panel-sessions', dependencies: ['redis', 'apikeys'] },
);
