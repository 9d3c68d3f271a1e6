import { createServiceMetrics } from '@gsp/service-kit';
import type { Counter, Registry } from 'prom-client';

/** What an operator watches on the proxy, on a registry of its own. */
export interface ProxyMetrics {
  registry: Registry;
  /** kubectl requests by kind (`request`, `upgrade`) and the status kubectl got, refusals included. */
  requests: Counter<'kind' | 'code'>;
  /** Agents' attempts to open a tunnel, by result. */
  tunnelConnections: Counter<'result'>;
  /** Live tunnels closed because the switch turned off. */
  tunnelsClosedBySwitch: Counter;
  /** Live tunnels and streams closed because a right ended (member removed, cluster deleted, agent token rotated). */
  closedByRevocation: Counter<'what' | 'reason'>;
  /** Times a slow kubectl client made the proxy pause a stream at the agent. */
  streamPauses: Counter;
}

/** What the replica gauges read when scraped. */
export interface ReplicaGauges {
  /** The replicas serving, as this replica counts them. */
  count(): number;
  /** Whether this replica is draining (SIGTERM). */
  draining(): boolean;
}

const ALONE: ReplicaGauges = { count: () => 1, draining: () => false };

export function createMetrics(liveTunnels: () => number, replicas: ReplicaGauges = ALONE): ProxyMetrics {
  const metrics = createServiceMetrics('gsp_proxy');
  metrics.gauge('tunnels', 'Connected tunnel agents', function () {
    this.set(liveTunnels());
  });
  metrics.gauge(
    'replicas',
    'Cluster proxy replicas serving (live and not draining), as this replica counts them and tells its agents',
    function () {
      this.set(replicas.count());
    },
  );
  metrics.gauge(
    'draining',
    '1 while this replica drains (after SIGTERM: unready, refusing new tunnels, finishing what is in flight)',
    function () {
      this.set(replicas.draining() ? 1 : 0);
    },
  );
  return {
    registry: metrics.registry,
    requests: metrics.counter('requests_total', 'kubectl requests by kind and the status answered', ['kind', 'code']),
    tunnelConnections: metrics.counter('tunnel_connections_total', 'Tunnel connection attempts by result', ['result']),
    tunnelsClosedBySwitch: metrics.counter(
      'tunnels_closed_by_switch_total',
      'Live tunnels closed because CLI access turned off',
    ),
    closedByRevocation: metrics.counter(
      'closed_by_revocation_total',
      'Live tunnels and kubectl streams closed because the right to them ended',
      ['what', 'reason'],
    ),
    streamPauses: metrics.counter(
      'stream_pauses_total',
      'Streams paused at the agent because the kubectl client read slower than the cluster answered',
    ),
  };
}
