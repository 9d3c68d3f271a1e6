import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

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
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  new Gauge({
    name: 'gsp_proxy_tunnels',
    help: 'Connected tunnel agents',
    registers,
    collect() {
      this.set(liveTunnels());
    },
  });
  new Gauge({
    name: 'gsp_proxy_replicas',
    help: 'Cluster proxy replicas serving (live and not draining), as this replica counts them and tells its agents',
    registers,
    collect() {
      this.set(replicas.count());
    },
  });
  new Gauge({
    name: 'gsp_proxy_draining',
    help: '1 while this replica drains (after SIGTERM: unready, refusing new tunnels, finishing what is in flight)',
    registers,
    collect() {
      this.set(replicas.draining() ? 1 : 0);
    },
  });
  return {
    registry,
    requests: new Counter({
      name: 'gsp_proxy_requests_total',
      help: 'kubectl requests by kind and the status answered',
      labelNames: ['kind', 'code'],
      registers,
    }),
    tunnelConnections: new Counter({
      name: 'gsp_proxy_tunnel_connections_total',
      help: 'Tunnel connection attempts by result',
      labelNames: ['result'],
      registers,
    }),
    tunnelsClosedBySwitch: new Counter({
      name: 'gsp_proxy_tunnels_closed_by_switch_total',
      help: 'Live tunnels closed because CLI access turned off',
      registers,
    }),
    closedByRevocation: new Counter({
      name: 'gsp_proxy_closed_by_revocation_total',
      help: 'Live tunnels and kubectl streams closed because the right to them ended',
      labelNames: ['what', 'reason'],
      registers,
    }),
    streamPauses: new Counter({
      name: 'gsp_proxy_stream_pauses_total',
      help: 'Streams paused at the agent because the kubectl client read slower than the cluster answered',
      registers,
    }),
  };
}
