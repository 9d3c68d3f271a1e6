import { ListWatch, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CoreV1Api, Informer, V1Secret, Watch } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import { ClusterUnavailable, Conflict, NotFound, ServiceUnavailable, withRetryAfter } from '../errors.js';
import { CLUSTER_RETRY_AFTER_SECONDS } from '../kube/errors.js';
import { BackgroundRetries } from '../kube/retry.js';
import { hashKey } from './keys.js';

export const APIKEY_LABEL = 'gsp.dev/apikey';
export const CREATED_BY_LABEL = 'gsp.dev/created-by';
export const LAST_USED_ANNOTATION = 'gsp.dev/last-used-at';
/**
 * Hex SHA-256 of the key value, so tooling can match a leaked key without decoding values. An
 * annotation, not a label: 64 hex characters exceed the 63 a label value may hold.
 */
export const SHA256_ANNOTATION = 'gsp.dev/apikey-sha256';
/**
 * On a key Secret whose value has not been shown to anyone yet: such a key never authenticates.
 * Removed once the create response has been sent; a create whose answer was lost leaves the
 * Secret pending, and it is deleted in the background.
 */
export const PENDING_ANNOTATION = 'gsp.dev/apikey-pending';
const LAST_USED_EVERY_MS = 5 * 60_000;

export interface ApiKeyMetadata {
  name: string;
  role: string;
  userId: string;
  username: string;
  createdAt: string;
  expiresAt?: string;
}

/** Which key: its name and the hex SHA-256 of its value (never the value itself). */
export interface ApiKeyIdentity {
  name: string;
  sha256: string;
}

export interface ApiKeyRecord extends ApiKeyMetadata {
  sha256: string;
  lastUsedAt?: string;
}

/** Whether the key's `expiresAt` has passed: an expired key no longer authenticates, though its Secret stays. */
export function hasExpired(record: Pick<ApiKeyRecord, 'expiresAt'>, now = Date.now()): boolean {
  return record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now;
}

/** A key Secret as the API server has it now; `record` is undefined when its data cannot be read. */
export interface StoredKey {
  uid: string;
  record: ApiKeyRecord | undefined;
}

/** A key Secret just created, still pending: `ApiKeyStore.confirm` once its value was sent, else `abandon`. */
export interface PendingKey {
  readonly name: string;
  readonly uid: string;
  readonly secret: V1Secret;
}

export class AlreadyExistsError extends Error {}
/** The Secret was replaced between reading and deleting it; what was checked is no longer what is there. */
export class ReplacedError extends Error {}

function decode(value: string | undefined): string | undefined {
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

function parseRecord(secret: V1Secret): ApiKeyRecord | undefined {
  const key = decode(secret.data?.key);
  const raw = decode(secret.data?.metadata);
  if (key === undefined || raw === undefined) return undefined;
  let meta: ApiKeyMetadata;
  try {
    meta = JSON.parse(raw) as ApiKeyMetadata;
  } catch {
    return undefined;
  }
  if (typeof meta.name !== 'string' || typeof meta.role !== 'string') return undefined;
  const lastUsedAt = secret.metadata?.annotations?.[LAST_USED_ANNOTATION];
  // Hashed from the data, not read from the annotation: a Secret written by hand may lack it or lie.
  return { ...meta, sha256: hashKey(key), ...(lastUsedAt ? { lastUsedAt } : {}) };
}

/**
 * API keys as Secrets in the control plane's namespace. Reads come from an informer-fed index
 * (hash of the key -> record), never from the API server per request, so a revocation by any
 * replica or by kubectl reaches every replica as one watch event, and its `onRevoked` listeners.
 */
export class ApiKeyStore {
  private readonly informer: Informer<V1Secret>;
  /** Hex SHA-256 of a key value -> its record: what authentication and `byHash` look up. */
  private readonly records = new Map<string, ApiKeyRecord>();
  /**
   * Secret name -> the Secret indexed under it and its record: the list, and the entry to drop on update and
   * delete.
   */
  private readonly bySecret = new Map<string, { uid: string; sha256: string; record: ApiKeyRecord }>();
  /** Secrets this replica deleted whose watch event has not come yet: late events about them are stale. */
  private readonly deleted = new Set<string>();
  private readonly revokedListeners = new Set<(key: ApiKeyIdentity) => void>();
  private readonly lastTouched = new Map<string, number>();
  /** Pending Secrets whose value this replica has sent to their creator: they authenticate here already. */
  private readonly shownHere = new Set<string>();
  private readonly background: BackgroundRetries;
  private synced = false;
  /** A list of the key Secrets has succeeded at least once. */
  private listed = false;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;
  /** The watch is failing: logged once until it works again. */
  private watchFailing = false;

  constructor(
    private readonly core: CoreV1Api,
    watch: Watch,
    private readonly namespace: string,
    private readonly prefix: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.background = new BackgroundRetries(log);
    const selector = `${APIKEY_LABEL}=true`;
    this.informer = new ListWatch(
      `/api/v1/namespaces/${namespace}/secrets`,
      watch,
      () =>
        this.core.listNamespacedSecret({ namespace, labelSelector: selector }).then((list) => {
          this.listed = true;
          this.watchWorks();
          return list;
        }),
      false,
      selector,
    );
    this.informer.on('add', (s) => {
      this.watchWorks();
      this.index(s);
    });
    this.informer.on('update', (s) => {
      this.watchWorks();
      this.index(s);
    });
    this.informer.on('delete', (s) => {
      this.watchWorks();
      const uid = s.metadata?.uid ?? '';
      this.shownHere.delete(uid);
      if (this.deleted.delete(uid)) return;
      this.unindex(s.metadata?.name ?? '', uid);
    });
    this.informer.on('error', (err) => {
      if (this.stopped) return;
      if (!this.watchFailing) {
        this.log.warn(
          { err: { message: (err as Error)?.message } },
          'api key watch failed; restarting every second until it works',
        );
      }
      this.watchFailing = true;
      clearTimeout(this.restartTimer);
      this.restartTimer = setTimeout(() => {
        if (!this.stopped) this.begin().catch(() => {});
      }, 1000);
    });
  }

  private watchWorks(): void {
    if (this.watchFailing) this.log.info('api key watch works again');
    this.watchFailing = false;
  }

  secretName(name: string): string {
    return `${this.prefix}-apikey-${name}`;
  }

  async start(): Promise<void> {
    await this.begin();
  }

  private async begin(): Promise<void> {
    await this.informer.start();
    // start() resolves after the first list, whose items were emitted as `add`. It resolves
    // after a failed list too (refused by RBAC, say): only a list that succeeded completes the index.
    if (this.listed) this.synced = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
    // A key shown in a response just before shutdown is still confirmed (one last, bounded attempt).
    await this.background.stop();
  }

  get ready(): boolean {
    return this.synced;
  }

  /** Keys in the index. */
  get size(): number {
    return this.records.size;
  }

  /**
   * Calls `listener` once for each key that stops authenticating because its Secret was deleted
   * or its value replaced, by this replica, another one or kubectl (each replica learns it from
   * its own watch). Expiry is not an event: holders of a key check its `expiresAt` themselves.
   * Returns the unsubscribe function.
   */
  onRevoked(listener: (key: ApiKeyIdentity) => void): () => void {
    this.revokedListeners.add(listener);
    return () => {
      this.revokedListeners.delete(listener);
    };
  }

  private index(secret: V1Secret): void {
    const name = secret.metadata?.name ?? '';
    const uid = secret.metadata?.uid ?? '';
    if (this.deleted.has(uid)) return;
    const pending = secret.metadata?.annotations?.[PENDING_ANNOTATION] !== undefined && !this.shownHere.has(uid);
    const record = pending ? undefined : parseRecord(secret);
    const current = this.bySecret.get(name);
    // The same key again (a use stamped, a relist): fresher metadata, and no revocation.
    if (current !== undefined && record !== undefined && current.sha256 === record.sha256) {
      this.records.set(record.sha256, record);
      this.bySecret.set(name, { uid, sha256: record.sha256, record });
      return;
    }
    if (current !== undefined) this.unindex(name, current.uid);
    if (record === undefined) return;
    this.records.set(record.sha256, record);
    this.bySecret.set(name, { uid, sha256: record.sha256, record });
  }

  /** Drops the key indexed under `secretName`, unless that is by now another Secret than `uid`. */
  private unindex(secretName: string, uid: string): void {
    const current = this.bySecret.get(secretName);
    if (current === undefined || current.uid !== uid) return;
    this.records.delete(current.sha256);
    this.bySecret.delete(secretName);
    const revoked: ApiKeyIdentity = { name: current.record.name, sha256: current.sha256 };
    for (const listener of this.revokedListeners) {
      try {
        listener(revoked);
      } catch (err) {
        this.log.error({ err, key: revoked.name }, 'an API key revocation listener failed');
      }
    }
  }

  /** The record of a key value, from memory. */
  lookup(key: string): ApiKeyRecord | undefined {
    return this.records.get(hashKey(key));
  }

  /**
   * The record of the key with this hash while it still authenticates (indexed, not expired),
   * else undefined: what a console ticket, an opening console, a panel session and the live feed
   * check, as a request would. Before the first list has completed the index nothing can be said
   * to be current, so undefined too.
   */
  byHash(sha256: string, now = Date.now()): ApiKeyRecord | undefined {
    if (!this.synced) return undefined;
    const record = this.records.get(sha256);
    return record === undefined || hasExpired(record, now) ? undefined : record;
  }

  /**
   * Every key that authenticates, one per Secret, by name, from memory: pending keys and Secrets
   * whose data cannot be read are not keys. This replica's own creates and revocations show at
   * once; others' once the watch brings them. Until the first list of the Secrets has succeeded
   * the index is incomplete, and it says so rather than answer with part of the keys.
   */
  list(): ApiKeyRecord[] {
    if (!this.synced) {
      const error = new ServiceUnavailable('the API key index has not been loaded from Kubernetes yet');
      throw withRetryAfter(error, CLUSTER_RETRY_AFTER_SECONDS);
    }
    return [...this.bySecret.values()].map((entry) => entry.record).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The key's Secret as the API server has it now (not the index, which may lag behind). */
  async get(name: string): Promise<StoredKey | undefined> {
    try {
      const secret = await this.core.readNamespacedSecret({ namespace: this.namespace, name: this.secretName(name) });
      if (secret.metadata?.labels?.[APIKEY_LABEL] !== 'true') return undefined;
      return { uid: secret.metadata.uid ?? '', record: parseRecord(secret) };
    } catch (err) {
      if (err instanceof NotFound) return undefined;
      throw err;
    }
  }

  /**
   * Creates the key's Secret, pending: it authenticates only once `confirm`ed, after its value
   * was sent to the caller. When the answer is lost (timeout, connection cut, cluster failing),
   * the Secret may or may not exist: if it does, it is removed in the background, and until
   * then it authenticates nowhere, so a key nobody saw is never valid.
   */
  async create(key: string, meta: ApiKeyMetadata, createdByLabel: string): Promise<PendingKey> {
    const name = this.secretName(meta.name);
    const sha256 = hashKey(key);
    let created: V1Secret;
    try {
      created = await this.core.createNamespacedSecret({
        namespace: this.namespace,
        body: {
          metadata: {
            name,
            labels: { [APIKEY_LABEL]: 'true', ...(createdByLabel ? { [CREATED_BY_LABEL]: createdByLabel } : {}) },
            annotations: { [SHA256_ANNOTATION]: sha256, [PENDING_ANNOTATION]: 'true' },
          },
          type: 'Opaque',
          data: {
            key: Buffer.from(key).toString('base64'),
            metadata: Buffer.from(JSON.stringify(meta)).toString('base64'),
          },
        },
      });
    } catch (err) {
      if (err instanceof Conflict) throw new AlreadyExistsError(`an API key named ${meta.name} already exists`);
      if (err instanceof ClusterUnavailable) this.removeUnseen(meta.name, { sha256 });
      throw err;
    }
    return { name: meta.name, uid: created.metadata?.uid ?? '', secret: created };
  }

  /**
   * The key's value has been sent to its creator: it authenticates on this replica at once, and
   * everywhere once the pending mark is off its Secret (retried in the background; the uid in the
   * patch makes sure it is still that Secret).
   */
  confirm(pending: PendingKey): void {
    this.shownHere.add(pending.uid);
    this.index(pending.secret);
    const body = { metadata: { uid: pending.uid, annotations: { [PENDING_ANNOTATION]: null } } };
    const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const forget = (): void => {
      this.shownHere.delete(pending.uid);
      this.unindex(this.secretName(pending.name), pending.uid);
    };
    this.background.run(
      `confirm API key ${pending.name}`,
      async () => {
        try {
          // Kept in shownHere until the Secret is deleted: the watch may still bring the pending version.
          const name = this.secretName(pending.name);
          this.index(await this.core.patchNamespacedSecret({ namespace: this.namespace, name, body }, mergePatch));
        } catch (err) {
          // Deleted or replaced meanwhile: revoked before it was confirmed.
          if (err instanceof NotFound || err instanceof Conflict) return forget();
          throw err;
        }
      },
      forget,
    );
  }

  /** The key's value never reached its creator (the connection closed first): its Secret goes. */
  abandon(pending: PendingKey): void {
    this.removeUnseen(pending.name, { uid: pending.uid });
  }

  /** Deletes the pending Secret of key `name` if it is the one meant (by uid, or by the key's hash). */
  private removeUnseen(name: string, which: { uid: string } | { sha256: string }): void {
    const secretName = this.secretName(name);
    this.background.run(`remove the API key ${name} that nobody saw`, async () => {
      let secret: V1Secret;
      try {
        secret = await this.core.readNamespacedSecret({ namespace: this.namespace, name: secretName });
      } catch (err) {
        if (err instanceof NotFound) return;
        throw err;
      }
      const uid = secret.metadata?.uid ?? '';
      const annotations = secret.metadata?.annotations ?? {};
      const ours = 'uid' in which ? uid === which.uid : annotations[SHA256_ANNOTATION] === which.sha256;
      if (!ours || annotations[PENDING_ANNOTATION] === undefined) return;
      try {
        await this.core.deleteNamespacedSecret({
          namespace: this.namespace,
          name: secretName,
          body: { preconditions: { uid } },
        });
      } catch (err) {
        if (err instanceof NotFound || err instanceof Conflict) return;
        throw err;
      }
    });
  }

  /**
   * Deletes the key's Secret if it is still the one `get` returned (`uid`), so a check made on
   * that Secret holds for what is deleted. False when there is no such Secret.
   */
  async delete(name: string, uid: string): Promise<boolean> {
    try {
      const body = { preconditions: { uid } };
      await this.core.deleteNamespacedSecret({ namespace: this.namespace, name: this.secretName(name), body });
    } catch (err) {
      if (err instanceof NotFound) return false;
      if (err instanceof Conflict) throw new ReplacedError(`API key ${name} was replaced while being revoked`);
      throw err;
    }
    // Dropped here at once; the watch event does the same on every other replica.
    this.deleted.add(uid);
    this.unindex(this.secretName(name), uid);
    return true;
  }

  /** Records a use, at most once per five minutes per key and replica; failures only log. */
  touch(record: ApiKeyRecord): void {
    const now = Date.now();
    const last = Math.max(
      this.lastTouched.get(record.name) ?? 0,
      record.lastUsedAt ? Date.parse(record.lastUsedAt) : 0,
    );
    if (now - last < LAST_USED_EVERY_MS) return;
    this.lastTouched.set(record.name, now);
    // A merge patch sets this one annotation and keeps the others (the key's SHA-256 among them).
    const body = { metadata: { annotations: { [LAST_USED_ANNOTATION]: new Date(now).toISOString() } } };
    const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    this.core
      .patchNamespacedSecret({ namespace: this.namespace, name: this.secretName(record.name), body }, mergePatch)
      .catch((err: unknown) =>
        this.log.warn(
          { err: { message: (err as Error).message }, key: record.name },
          'could not record the last use of an API key',
        ),
      );
  }
}
