import type { Logger } from '@gsp/service-kit';
import type { Held } from './held.js';

/**
 * After sending `drain`, an idle tunnel stays open this long before the agent closes it: a request
 * the proxy opened before it read the drain may still be on its way (the protocol has no answer to
 * a drain).
 */
const DRAIN_SETTLE_MS = 250;

/**
 * The agent's stop: `drain` on every tunnel, each closed once its requests are done or the grace is
 * over. The grace is one deadline for every wait of the stop (the dial loop, each tunnel's requests,
 * the proxy's answer to the close), so a proxy that vanishes mid-drain cannot hold the agent past it.
 */
export class AgentDrain {
  /** Ends the grace: at its deadline, or sooner when a shorter stop is asked. */
  private graceOver: () => void = () => undefined;
  private readonly grace = new Promise<void>((resolve) => (this.graceOver = resolve));
  private timer: NodeJS.Timeout | undefined;
  private ends = Infinity;

  constructor(private readonly log: Logger) {}

  /** The grace ends `graceMs` from now, unless it ends sooner already. */
  shorten(graceMs: number): void {
    if (Date.now() + graceMs >= this.ends) return;
    this.ends = Date.now() + graceMs;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.graceOver, graceMs);
  }

  /** `work`, or undefined once the grace is over first. */
  within<T>(work: Promise<T>): Promise<T | undefined> {
    return Promise.race([work, this.grace.then(() => undefined)]);
  }

  /** What is left of the grace, in milliseconds (Infinity before a stop). */
  private remainingMs(): number {
    return Math.max(0, this.ends - Date.now());
  }

  /** Drains every tunnel in `entries`; resolves once all are closed. */
  async all(entries: readonly Held[]): Promise<void> {
    if (entries.length > 0) this.log.info({ tunnels: entries.length }, 'draining the tunnels');
    await Promise.all(entries.map((entry) => this.one(entry)));
    clearTimeout(this.timer);
  }

  /** Drains one tunnel: closed once its requests are done, at the latest when the grace is over. */
  private async one(entry: Held): Promise<void> {
    entry.tunnel.drain();
    const settled = entry.tunnel.done.catch(() => undefined);
    const idle = (async () => {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_SETTLE_MS));
      await entry.tunnel.whenIdle();
    })();
    await Promise.race([idle, this.grace, settled]);
    const abandoned = entry.tunnel.inFlight;
    if (abandoned > 0)
      this.log.warn({ replicaId: entry.replicaId, abandoned }, 'requests still in flight after AGENT_DRAIN_GRACE');
    // Past the deadline the proxy gets no time to close its side: the tunnel is cut.
    await entry.tunnel.close(this.remainingMs());
  }
}
