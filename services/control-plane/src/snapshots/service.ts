import type { CustomObjectsApi, Watch } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditDetails } from '../audit-target.js';
import { NotFound } from '../errors.js';
import type { CommandRunner } from '../kube/exec.js';
import type { Informer } from '../kube/informer.js';
import type { ActionLocks } from '../gameservers/locks.js';
import type { AgonesGameServer } from '../gameservers/model.js';
import type { ProfileStore } from '../profiles/store.js';
import type { Snapshot } from './model.js';
import { SnapshotRetention } from './retention.js';
import type { WriteAudit } from './retention.js';
import { SnapshotStore } from './store.js';
import { takeSnapshot } from './take.js';
import type { SnapshotContext, SnapshotCreated } from './take.js';

export interface SnapshotServiceOptions {
  custom: CustomObjectsApi;
  watch: Watch;
  exec: CommandRunner;
  locks: ActionLocks;
  gameServers: Informer<AgonesGameServer>;
  profiles: Pick<ProfileStore, 'get' | 'ready'>;
  log: FastifyBaseLogger;
  /** Where retention writes the audit line of each snapshot it deletes (no request is behind it). */
  writeAudit: WriteAudit;
}

/**
 * The snapshots of game servers: taken under the server's action lock, read from this replica's
 * cache, pruned by retention as profiles say. `start` lists them and starts retention; `stop`
 * ends both.
 */
export class SnapshotService {
  readonly store: SnapshotStore;
  private readonly retention: SnapshotRetention;
  private readonly ctx: SnapshotContext;
  private readonly gameServers: Informer<AgonesGameServer>;

  constructor(options: SnapshotServiceOptions) {
    const { custom, watch, exec, locks, profiles, log, writeAudit } = options;
    this.gameServers = options.gameServers;
    this.store = new SnapshotStore(custom, watch, log);
    this.ctx = { exec, locks, store: this.store, profile: (name) => profiles.get(name), log };
    const keepOf = (profile: string): number | undefined => {
      // Profiles not loaded yet: keep everything for now; the next ready snapshot tries again.
      if (!profiles.ready) return undefined;
      return profiles.get(profile)?.snapshot?.keep;
    };
    this.retention = new SnapshotRetention({ informer: this.store.informer, custom, keepOf, log, writeAudit });
  }

  async start(): Promise<void> {
    await this.store.start();
    this.retention.start();
  }

  async stop(): Promise<void> {
    await this.retention.stop();
    await this.store.stop();
  }

  /** A snapshot of game server `namespace/name` (takeSnapshot); 404 for a server the cache does not have. */
  async take(
    namespace: string,
    name: string,
    requestedName: string | undefined,
    audit: (details: AuditDetails) => void,
  ): Promise<SnapshotCreated> {
    this.gameServers.requireReady();
    const gs = this.gameServers.get(namespace, name);
    if (gs === undefined) throw new NotFound(`game server ${namespace}/${name} not found`);
    return takeSnapshot(this.ctx, gs, requestedName, audit);
  }

  /**
   * The snapshots of game server `namespace/name`. A deleted server's snapshots stay (they can be
   * restored) and are still listed; a server with neither is 404.
   */
  ofGameServer(namespace: string, name: string): Snapshot[] {
    const items = this.store.ofGameServer(namespace, name);
    this.gameServers.requireReady();
    if (items.length === 0 && this.gameServers.get(namespace, name) === undefined)
      throw new NotFound(`game server ${namespace}/${name} not found`);
    return items;
  }

  list(namespace?: string): Snapshot[] {
    return this.store.list(namespace);
  }

  get(namespace: string, name: string): Snapshot {
    const found = this.store.get(namespace, name);
    if (found === undefined) throw new NotFound(`snapshot ${namespace}/${name} not found`);
    return found;
  }

  async delete(namespace: string, name: string): Promise<void> {
    await this.store.delete(namespace, name);
  }
}
