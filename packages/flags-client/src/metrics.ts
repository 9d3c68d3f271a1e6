import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** The flags client's Prometheus metrics; every method is a no-op without a registry. */
export class FlagsMetrics {
  private readonly staleServed: Counter | undefined;
  private readonly storeUp: Gauge | undefined;
  private readonly invalidations: Counter | undefined;

  constructor(registry: Registry | undefined) {
    if (!registry) return;
    const registers = [registry];
    this.staleServed = new Counter({
      name: 'gsp_flags_stale_evaluations_total',
      help: 'Evaluations answered with a stale value because the flag store could not be read',
      registers,
    });
    this.storeUp = new Gauge({
      name: 'gsp_flags_store_up',
      help: '1 while the flag store answers, 0 during an outage',
      registers,
    });
    this.invalidations = new Counter({
      name: 'gsp_flags_invalidations_total',
      help: 'Cache invalidations by scope',
      labelNames: ['scope'],
      registers,
    });
    this.storeUp.set(1);
  }

  servedStale(): void {
    this.staleServed?.inc();
  }

  storeReachable(up: boolean): void {
    this.storeUp?.set(up ? 1 : 0);
  }

  invalidated(scope: 'platform' | 'cluster' | 'all'): void {
    this.invalidations?.inc({ scope });
  }
}
