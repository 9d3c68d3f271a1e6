import type { CustomObjectsApi } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import { Conflict, NotFound } from '../errors.js';
import type { Informer } from '../kube/informer.js';
import { SNAPSHOTS } from '../kube/volume-snapshots.js';
import type { VolumeSnapshot } from '../kube/volume-snapshots.js';
import { PROFILE_LABEL } from '../profiles/store.js';
import { GAME_SERVER_LABEL, byAge, isOwn, isReady } from './model.js';

/** One deletion by retention, as an audit line: no request made it, so the control plane is the actor. */
export interface RetentionAuditLine {
  timestamp: string;
  level: 'audit';
  user: 'gsp-control-plane';
  action: 'snapshot.retention';
  /** `namespace/name` of the snapshot deleted. */
  target: string;
  result: 'success';
  /** Why: which game server, how many newer ready ones, what the profile keeps. */
  outcome: string;
}

/** Where retention's audit lines go (the audit plugin's stream, in app.ts). */
export type WriteAudit = (line: RetentionAuditLine) => void;

/**
 * The ready snapshots to delete so that the newest `keep` remain, oldest first. Snapshots not
 * ready (being cut, or failed) neither count nor go: they are not backups one could restore.
 */
export function beyondKeep(snapshots: readonly VolumeSnapshot[], keep: number): VolumeSnapshot[] {
  const ready = snapshots.filter(isReady).sort(byAge);
  return ready.slice(0, Math.max(0, ready.length - keep));
}

export interface RetentionOptions {
  informer: Informer<VolumeSnapshot>;
  custom: CustomObjectsApi;
  /** `snapshot.keep` of profile `name`; undefined keeps everything. */
  keepOf: (profile: string) => number | undefined;
  log: FastifyBaseLogger;
  writeAudit: WriteAudit;
}

const keyOf = (snapshot: VolumeSnapshot): string =>
  `${snapshot.metadata?.namespace ?? ''}/${snapshot.metadata?.labels?.[GAME_SERVER_LABEL] ?? ''}`;

/**
 * Profile `snapshot.keep`, applied whenever one of a game server's snapshots is seen ready (so
 * also for every ready one at start): its oldest ready snapshots beyond `keep` are deleted, each
 * with an audit line. The count is the one of the profile named on the game server's newest
 * ready snapshot. Every replica watches; each deletion is conditional on the snapshot's uid, so
 * one replica's succeeds, and only that one is audited.
 */
export class SnapshotRetention {
  /** Game servers (`namespace/name`) to look at. */
  private readonly pending = new Set<string>();
  /** Snapshots deleted whose deletion the watch has not shown yet. */
  private readonly deleted = new Set<string>();
  private running: Promise<void> | undefined;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: RetentionOptions) {}

  start(): void {
    this.unsubscribe = this.options.informer.onChange((type, snapshot) => {
      if (type === 'delete') this.deleted.delete(snapshot.metadata?.uid ?? '');
      else if (isReady(snapshot) && isOwn(snapshot)) this.schedule(keyOf(snapshot));
    });
    for (const snapshot of this.options.informer.list())
      if (isReady(snapshot) && isOwn(snapshot)) this.schedule(keyOf(snapshot));
  }

  /** Stops reacting, and waits for a deletion under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    await this.running;
  }

  private schedule(key: string): void {
    this.pending.add(key);
    if (this.running !== undefined || this.stopped) return;
    // One game server at a time: a burst of ready snapshots is one pass, not a pile of races.
    this.running = (async () => {
      for (const next of this.pending) {
        if (this.stopped) return;
        this.pending.delete(next);
        await this.enforce(next).catch((err: unknown) => {
          const message =
            'snapshot retention failed; it is tried again when a snapshot of that game server is next ready';
          this.options.log.warn({ err: { message: (err as Error).message }, gameServer: next }, message);
        });
      }
    })().finally(() => {
      this.running = undefined;
      const [next] = this.pending;
      if (next !== undefined) this.schedule(next);
    });
  }

  private async enforce(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const gameServer = key.slice(slash + 1);
    const live = this.options.informer
      .list(namespace)
      .filter(
        (s) =>
          isOwn(s) &&
          keyOf(s) === key &&
          s.metadata?.deletionTimestamp === undefined &&
          !this.deleted.has(s.metadata?.uid ?? ''),
      );
    const newest = live.filter(isReady).sort(byAge).at(-1);
    const profile = newest?.metadata?.labels?.[PROFILE_LABEL];
    const keep = profile === undefined ? undefined : this.options.keepOf(profile);
    if (keep === undefined) return;
    for (const snapshot of beyondKeep(live, keep)) {
      if (this.stopped) return;
      const name = snapshot.metadata?.name ?? '';
      const uid = snapshot.metadata?.uid ?? '';
      // Marked first: the watch may bring the deletion before the answer does.
      this.deleted.add(uid);
      try {
        await this.options.custom.deleteNamespacedCustomObject({
          ...SNAPSHOTS,
          namespace,
          name,
          body: { preconditions: { uid } },
        });
      } catch (err) {
        this.deleted.delete(uid);
        // Deleted already, by someone or by another replica's retention: not ours to audit.
        if (err instanceof NotFound || err instanceof Conflict) continue;
        throw err;
      }
      this.options.writeAudit({
        timestamp: new Date().toISOString(),
        level: 'audit',
        user: 'gsp-control-plane',
        action: 'snapshot.retention',
        target: `${namespace}/${name}`,
        result: 'success',
        outcome:
          `deleted: profile ${profile} keeps the newest ${keep} ready snapshots ` +
          `of game server ${namespace}/${gameServer}`,
      });
    }
  }
}
