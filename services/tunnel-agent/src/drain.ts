import type { Logger } from '@gsp/service-kit';
import type { Held } from './held.js';

/**
 * After sending `drain`, an idle tunnel stays open this long before the agent closes it: a request
 * the proxy opened before it read the drain may still be on its way (the protocol has no answer to
 * a drain).
 */
const DRAIN_SETTLE_MS = 250;

/** The agent's stop: `drain` on every tunnel, each closed once its requests are done or the grace is over. */
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
    await entry.tunnel.close();
  }
}
