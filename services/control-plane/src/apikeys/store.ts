import { CoreV1Api, makeInformer } from '@kubernetes/client-node';
import type { Informer, KubeConfig, V1Secret } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import { hashKey } from './keys.js';

export const APIKEY_LABEL = 'gsp.dev/apikey';
export const CREATED_BY_LABEL = 'gsp.dev/created-by';
export const LAST_USED_ANNOTATION = 'gsp.dev/last-used-at';
const LAST_USED_EVERY_MS = 5 * 60_000;

export interface ApiKeyMetadata {
  name: string;
  role: string;
  userId: string;
  username: string;
  createdAt: string;
  expiresAt?: string;
}

export interface ApiKeyRecord extends ApiKeyMetadata {
  lastUsedAt?: string;
}

export class AlreadyExistsError extends Error {}

function decode(value: string | undefined): string | undefined {
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

function parseRecord(secret: V1Secret): { hash: string; record: ApiKeyRecord } | undefined {
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
  return { hash: hashKey(key), record: { ...meta, ...(lastUsedAt ? { lastUsedAt } : {}) } };
}

/**
 * API keys as Secrets in the control plane's namespace. Reads come from an informer-fed index
 * (hash of the key -> record), never from the API server per request, so a revocation by any
 * replica or by kubectl reaches every replica as one watch event.
 */
export class ApiKeyStore {
  private readonly core: CoreV1Api;
  private readonly informer: Informer<V1Secret>;
  private readonly byHash = new Map<string, ApiKeyRecord>();
  /** Secret name -> hash, to drop the right entry on update and delete. */
  private readonly hashBySecret = new Map<string, string>();
  private readonly lastTouched = new Map<string, number>();
  private synced = false;
  /** A list of the key Secrets has succeeded at least once. */
  private listed = false;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    kubeConfig: KubeConfig,
    private readonly namespace: string,
    private readonly prefix: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    const selector = `${APIKEY_LABEL}=true`;
    this.informer = makeInformer(
      kubeConfig,
      `/api/v1/namespaces/${namespace}/secrets`,
      () =>
        this.core.listNamespacedSecret({ namespace, labelSelector: selector }).then((list) => {
          this.listed = true;
          return list;
        }),
      selector,
    );
    this.informer.on('add', (s) => this.index(s));
    this.informer.on('update', (s) => this.index(s));
    this.informer.on('delete', (s) => this.unindex(s.metadata?.name ?? ''));
    this.informer.on('error', (err) => {
      if (this.stopped) return;
      this.log.warn({ err: { message: (err as Error)?.message } }, 'api key watch failed; restarting in 1 s');
      clearTimeout(this.restartTimer);
      this.restartTimer = setTimeout(() => {
        if (!this.stopped) this.begin().catch(() => {});
      }, 1000);
    });
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
  }

  get ready(): boolean {
    return this.synced;
  }

  /** Keys in the index. */
  get size(): number {
    return this.byHash.size;
  }

  private index(secret: V1Secret): void {
    const name = secret.metadata?.name ?? '';
    this.unindex(name);
    const parsed = parseRecord(secret);
    if (!parsed) return;
    this.byHash.set(parsed.hash, parsed.record);
    this.hashBySecret.set(name, parsed.hash);
  }

  private unindex(secretName: string): void {
    const hash = this.hashBySecret.get(secretName);
    if (hash === undefined) return;
    this.byHash.delete(hash);
    this.hashBySecret.delete(secretName);
  }

  /** The record of a key value, from memory. */
  lookup(key: string): ApiKeyRecord | undefined {
    return this.byHash.get(hashKey(key));
  }

  list(): ApiKeyRecord[] {
    return [...this.byHash.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  async create(key: string, meta: ApiKeyMetadata, createdByLabel: string): Promise<void> {
    try {
      const created = await this.core.createNamespacedSecret({
        namespace: this.namespace,
        body: {
          metadata: { name: this.secretName(meta.name), labels: { [APIKEY_LABEL]: 'true', ...(createdByLabel ? { [CREATED_BY_LABEL]: createdByLabel } : {}) } },
          type: 'Opaque',
          data: { key: Buffer.from(key).toString('base64'), metadata: Buffer.from(JSON.stringify(meta)).toString('base64') },
        },
      });
      // Usable at once on this replica; the watch event brings it to the others.
      this.index(created);
    } catch (err) {
      if ((err as { code?: number }).code === 409) throw new AlreadyExistsError(`an API key named ${meta.name} already exists`);
      throw err;
    }
  }

  /** False when there was no such key. */
  async delete(name: string): Promise<boolean> {
    try {
      await this.core.deleteNamespacedSecret({ namespace: this.namespace, name: this.secretName(name) });
    } catch (err) {
      if ((err as { code?: number }).code === 404) return false;
      throw err;
    }
    // Drop it here at once; the watch event does the same on every other replica.
    this.unindex(this.secretName(name));
    return true;
  }

  /** Records a use, at most once per five minutes per key and replica; failures only log. */
  touch(record: ApiKeyRecord): void {
    const now = Date.now();
    const last = Math.max(this.lastTouched.get(record.name) ?? 0, record.lastUsedAt ? Date.parse(record.lastUsedAt) : 0);
    if (now - last < LAST_USED_EVERY_MS) return;
    this.lastTouched.set(record.name, now);
    this.core
      .patchNamespacedSecret({
        namespace: this.namespace,
        name: this.secretName(record.name),
        body: [{ op: 'add', path: `/metadata/annotations`, value: { [LAST_USED_ANNOTATION]: new Date(now).toISOString() } }],
      })
      .catch((err: unknown) => this.log.warn({ err: { message: (err as Error).message }, key: record.name }, 'could not record the last use of an API key'));
  }
}
