import type { Logger } from '@gsp/service-kit';
import type { AgentTunnel } from '../tunnel/tunnel.js';

/** One tunnel the agent holds, from the proxy's hello to its end. */
export interface Held {
  tunnel: AgentTunnel;
  replicaId: string;
  connectedAt: number;
  /** The replica said it is shutting down: not counted, kept until the proxy closes it. */
  draining: boolean;
  /** How many replicas serve, as this replica last announced (0: it does not say). */
  announced: number;
}

const REPLICAS_CHANGED = 'the number of proxy replicas to hold a tunnel to changed';

/**
 * The tunnels the agent holds, by replica id (an old proxy's, which names none, under ''), and how
 * many distinct replicas it aims to hold.
 */
export class HeldTunnels {
  private readonly byReplica = new Map<string, Held>();
  /** The target while no tunnel is held: the last one computed. */
  private lastTarget = 1;

  constructor(private readonly log: Logger) {}

  get size(): number {
    return this.byReplica.size;
  }

  /** The replica ids held, as the dial's held list reads them. */
  ids(): IterableIterator<string> {
    return this.byReplica.keys();
  }

  all(): Held[] {
    return [...this.byReplica.values()];
  }

  /**
   * The highest count among the serving replicas held, each as it last announced: a replica that has
   * not yet counted a newcomer does not pull the target down. 0 (an old proxy): keep one tunnel.
   */
  target(): number {
    let highest = 0;
    for (const h of this.byReplica.values()) if (!h.draining) highest = Math.max(highest, h.announced);
    if (this.byReplica.size > 0) this.lastTarget = Math.max(1, highest);
    return this.lastTarget;
  }

  /** Tunnels held to replicas that are not draining. */
  serving(): number {
    return this.all().filter((h) => !h.draining).length;
  }

  /** The replicas held that serve (not draining), sorted. */
  replicas(): string[] {
    return this.all()
      .filter((h) => !h.draining)
      .map((h) => h.replicaId)
      .sort();
  }

  /** The proxy accepted `entry`'s tunnel: it is held under its replica, counting as it announced. */
  add(entry: Held, replicaId: string, count: number): void {
    entry.replicaId = replicaId;
    entry.connectedAt = Date.now();
    // The replica refuses a tunnel it is told the agent holds; one that did not (it cannot read the
    // list) replaced the old tunnel with this one, and closes the old.
    if (this.byReplica.has(replicaId)) this.log.warn({ replicaId }, 'a second tunnel to one replica');
    const before = this.target();
    entry.announced = count;
    this.byReplica.set(replicaId, entry);
    if (this.target() !== before) this.log.info({ replicaId, replicas: this.target() }, REPLICAS_CHANGED);
  }

  /** `entry`'s replica announced how many replicas serve; true when the target grew. */
  announce(entry: Held, count: number): boolean {
    const before = this.target();
    entry.announced = count;
    if (this.target() === before) return false;
    this.log.info({ replicaId: entry.replicaId, replicas: this.target() }, REPLICAS_CHANGED);
    return this.target() > before;
  }

  /** `entry`'s tunnel ended: its replica is no longer held (unless a newer tunnel replaced it). */
  remove(entry: Held): void {
    if (this.byReplica.get(entry.replicaId) === entry) this.byReplica.delete(entry.replicaId);
  }
}
