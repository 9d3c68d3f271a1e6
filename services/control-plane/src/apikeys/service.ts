import { parseDuration } from '@gsp/service-kit';
import { BadRequest, Conflict, Forbidden, NotFound, Unauthorized } from '../errors.js';
import type { Roles } from '../rbac/roles.js';
import { generateKey, MAX_KEY_TTL_MS, MAX_KEY_TTL_TEXT, toLabelValue } from './keys.js';
import { AlreadyExistsError, ReplacedError } from './store.js';
import type { ApiKeyMetadata, ApiKeyStore, PendingKey } from './store.js';

export interface ApiKeyServiceOptions {
  /** APIKEY_PREFIX: keys read `<prefix>_...`, their Secrets `<prefix>-apikey-<name>`. */
  keyPrefix: string;
  roles: Roles;
  /** APIKEY_MAX_TTL: the lifetime of a key created without `expiresIn`, and the longest one may ask. */
  maxTtlMs: number | undefined;
}

/** A key as the list shows it: never its value. */
export interface ApiKeyItem {
  name: string;
  userId: string;
  username: string;
  role: string;
  createdAt: string;
  expiresAt?: string;
  lastUsedAt?: string;
}

export interface NewApiKey {
  name: string;
  /** The caller's own role when left out. */
  role?: string | undefined;
  /** A duration such as `30d`; APIKEY_MAX_TTL (or no expiry) when left out. */
  expiresIn?: string | undefined;
}

/** A key just created: its answer (the value shown once), and its Secret still pending. */
export interface CreatedApiKey {
  answer: { name: string; role: string; createdAt: string; expiresAt?: string; key: string };
  /** `ApiKeyStore.confirm` once the answer was sent in full, else `abandon`. */
  pending: PendingKey;
}

/**
 * Who creates or revokes a key, as far as the rules depend on it: the authenticated caller (a
 * `Principal`), its name recorded on the key.
 */
export interface KeyActor {
  userId: string;
  username: string;
  role: string | undefined;
}

/** The caller and its role: a caller without one may create and revoke nothing. */
function withRole(caller: KeyActor | null): KeyActor & { role: string } {
  if (!caller?.role) throw new Unauthorized('authentication is required');
  return { ...caller, role: caller.role };
}

/**
 * API keys as the API manages them: listed from the informer's index, created with a role the
 * caller's covers and a bounded lifetime, revoked by a caller whose role covers the key's.
 */
export class ApiKeyService {
  /** The longest name whose Secret name `<prefix>-apikey-<name>` fits in 63 characters. */
  readonly maxName: number;

  constructor(
    private readonly store: Pick<ApiKeyStore, 'list' | 'get' | 'create' | 'delete'>,
    private readonly opts: ApiKeyServiceOptions,
  ) {
    this.maxName = 63 - `${opts.keyPrefix}-apikey-`.length;
  }

  /** Every key, sorted by name; a 503 until the informer has listed them. */
  list(): ApiKeyItem[] {
    return this.store.list().map((r) => ({
      name: r.name,
      userId: r.userId,
      username: r.username,
      role: r.role,
      createdAt: r.createdAt,
      ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}),
      ...(r.lastUsedAt ? { lastUsedAt: r.lastUsedAt } : {}),
    }));
  }

  /** Creates the key `request.name` for `actor` (409 when the name is taken); it authenticates once confirmed. */
  async create(actor: KeyActor | null, request: NewApiKey, now = new Date()): Promise<CreatedApiKey> {
    const caller = withRole(actor);
    const { name } = request;
    const { keyPrefix, roles } = this.opts;
    if (name.length > this.maxName)
      throw new BadRequest(
        `name must be at most ${this.maxName} characters, ` +
          `so that the Secret name ${keyPrefix}-apikey-<name> fits in 63`,
      );
    const role = request.role ?? caller.role;
    if (!roles.has(role)) throw new BadRequest(`unknown role ${JSON.stringify(role)}`);
    if (!roles.covers(caller.role, role))
      throw new Forbidden(`role ${caller.role} may not create a key with role ${role}`);
    const ttlMs = this.lifetime(request.expiresIn);
    const expiresAt = ttlMs === undefined ? undefined : new Date(now.getTime() + ttlMs).toISOString();
    const meta: ApiKeyMetadata = {
      name,
      role,
      userId: caller.userId,
      username: caller.username,
      createdAt: now.toISOString(),
      ...(expiresAt ? { expiresAt } : {}),
    };
    const key = generateKey(keyPrefix);
    try {
      const pending = await this.store.create(key, meta, toLabelValue(caller.username));
      return { answer: { name, role, createdAt: meta.createdAt, ...(expiresAt ? { expiresAt } : {}), key }, pending };
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw new Conflict(err.message);
      throw err;
    }
  }

  /** Revokes key `name` (404 when there is none, 409 when it was replaced meanwhile). */
  async revoke(actor: KeyActor | null, name: string): Promise<void> {
    const caller = withRole(actor);
    const { roles } = this.opts;
    // Read from the API server, not the index: a replica still syncing must not skip the check below.
    const stored = await this.store.get(name);
    if (stored === undefined) throw new NotFound(`API key ${name} not found`);
    // The rule of creation: only a key whose role the caller's covers. A role this configuration
    // does not know (or metadata that cannot be read) grants nothing, so any key manager may revoke it.
    const role = stored.record?.role;
    if (role !== undefined && roles.has(role) && !roles.covers(caller.role, role)) {
      const rule = 'only keys of roles it covers';
      throw new Forbidden(`role ${caller.role} may not revoke API key ${name} with role ${role}: ${rule}`);
    }
    try {
      if (!(await this.store.delete(name, stored.uid))) throw new NotFound(`API key ${name} not found`);
    } catch (err) {
      if (err instanceof ReplacedError) throw new Conflict(`${err.message}; try again`);
      throw err;
    }
  }

  /** The lifetime `expiresIn` asks for, within 1s and the longest allowed; APIKEY_MAX_TTL when not given. */
  private lifetime(expiresIn: string | undefined): number | undefined {
    const { maxTtlMs } = this.opts;
    if (expiresIn === undefined) return maxTtlMs;
    const ttlMs = parseDuration(expiresIn);
    if (ttlMs === undefined || ttlMs < 1000 || ttlMs > (maxTtlMs ?? MAX_KEY_TTL_MS)) {
      const limit = maxTtlMs === undefined ? MAX_KEY_TTL_TEXT : `${maxTtlMs / 1000}s (APIKEY_MAX_TTL)`;
      throw new BadRequest(
        `expiresIn must be a duration from 1s to ${limit}, such as 30d; got ${JSON.stringify(expiresIn)}`,
      );
    }
    return ttlMs;
  }
}
