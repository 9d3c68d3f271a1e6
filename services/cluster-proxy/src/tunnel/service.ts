import { randomUUID } from 'node:crypto';
import { Code, ConnectError } from '@connectrpc/connect';
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import type pg from 'pg';
import { clusterOfAgentToken, hashAgentToken } from '@gsp/platform-contract';
import { bearerToken } from '@gsp/service-kit';
import {
  agentFramesOf,
  codeLabel,
  HELD_REPLICAS_HEADER,
  proxyMessage,
  TunnelServiceProxySide,
} from '@gsp/tunnel-proto';
import type { AgentMessage, ProxyMessageSchema } from '@gsp/tunnel-proto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { tunnelRefusal } from '../access.js';
import type { SwitchDecision } from '../access.js';
import { Tunnel } from './tunnel.js';
import type { ProxyMetrics } from '../metrics.js';
import type { TunnelPresence } from '../presence.js';
import type { TunnelRegistry } from './tunnel.js';

export interface TunnelServiceOptions {
  pool: pg.Pool;
  registry: TunnelRegistry;
  cliAccess(clusterId: string): Promise<SwitchDecision>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  metrics: ProxyMetrics;
  /** Where the tunnels this replica holds are recorded for the API server (never awaited: it cannot fail a tunnel). */
  presence: TunnelPresence;
  /** `PROXY_REPLICA_ID`, told in `hello`. */
  replicaId: string;
  /** How many replicas serve now (told in `hello`), and whether this one is draining (it then refuses tunnels). */
  replicas: { readonly count: number; readonly isDraining: boolean };
}

/** The most ids of `x-gsp-held-replicas` looked at (an agent sends at most this many). */
const HELD_REPLICAS_MAX = 64;

/** Whether the agent's `x-gsp-held-replicas` names `replicaId`. */
function holdsReplica(header: string | null, replicaId: string): boolean {
  if (!header) return false;
  return header.split(',', HELD_REPLICAS_MAX).some((id) => id.trim() === replicaId);
}

/** The cluster the agent's token opens, and the token's hash (a rotation makes the tunnel stale). */
async function authenticate(pool: pg.Pool, ctx: HandlerContext): Promise<{ clusterId: string; tokenHash: string }> {
  const token = bearerToken(ctx.requestHeader.get('authorization') ?? undefined);
  if (!token)
    throw new ConnectError('an agent token is required (authorization: Bearer <token>)', Code.Unauthenticated);
  const cluster = await clusterOfAgentToken(pool, token);
  if (cluster === undefined) {
    throw new ConnectError(
      'unknown agent token: register the cluster (or rotate its token) and use the token it returned',
      Code.Unauthenticated,
    );
  }
  const claimed = ctx.requestHeader.get('x-gsp-cluster-id');
  if (claimed && claimed !== cluster.id)
    throw new ConnectError(`the agent token belongs to another cluster than ${claimed}`, Code.PermissionDenied);
  return { clusterId: cluster.id, tokenHash: hashAgentToken(token) };
}

/** A draining replica takes no new tunnel: `unavailable`, so the agent dials again and reaches another. */
function refuseIfDraining(opts: TunnelServiceOptions): void {
  if (!opts.replicas.isDraining) return;
  opts.metrics.tunnelConnections.inc({ result: 'draining' });
  throw new ConnectError(
    `the proxy replica ${opts.replicaId} is draining (shutting down); connect again to reach another replica`,
    Code.Unavailable,
  );
}

export function tunnelRoutes(opts: TunnelServiceOptions): (router: ConnectRouter) => void {
  return (router) => {
    router.service(TunnelServiceProxySide, {
      async *connect(
        requests: AsyncIterable<AgentMessage>,
        ctx: HandlerContext,
      ): AsyncIterable<MessageInitShape<typeof ProxyMessageSchema>> {
        refuseIfDraining(opts);
        let clusterId: string;
        let tokenHash: string;
        try {
          ({ clusterId, tokenHash } = await authenticate(opts.pool, ctx));
        } catch (err) {
          opts.metrics.tunnelConnections.inc({
            result: err instanceof ConnectError ? codeLabel(Code[err.code]) : 'error',
          });
          throw err;
        }
        const decision = await opts.cliAccess(clusterId);
        if (!decision.allowed) {
          opts.metrics.tunnelConnections.inc({ result: 'switch_off' });
          // The agent is alive and will be back when the switch is on: kubectl is then told to retry, not to check it.
          opts.registry.switchedOff(clusterId);
          throw tunnelRefusal(decision);
        }
        if (holdsReplica(ctx.requestHeader.get(HELD_REPLICAS_HEADER), opts.replicaId)) {
          opts.metrics.tunnelConnections.inc({ result: 'duplicate' });
          throw new ConnectError(`the agent already holds a tunnel to replica ${opts.replicaId}`, Code.AlreadyExists);
        }
        // Again: the drain may have begun while the token and the switch were read.
        refuseIfDraining(opts);
        opts.metrics.tunnelConnections.inc({ result: 'accepted' });

        const tunnel = new Tunnel(clusterId, tokenHash);
        // The agent is stopping: its other tunnels (or its next one) take new requests; these streams finish here.
        tunnel.onAgentDrain = () => {
          opts.registry.retire(tunnel);
          opts.log.info({ clusterId }, 'the agent is draining its tunnel');
        };
        const held = { tunnelId: randomUUID(), clusterId };
        // Recorded before `add` closes the tunnel this one replaces, so its drop is written after.
        opts.presence.connected(held);
        opts.registry.add(tunnel);
        opts.log.info({ clusterId }, 'tunnel connected');
        // kubectl hears 502 for a tunnel that went away under its request: the agent reconnects by itself.
        const lost = (why: string) => ({ code: 502, message: `the tunnel to cluster ${clusterId} closed (${why})` });
        const onAbort = () => tunnel.close(lost('the agent disconnected'));
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        void (async () => {
          try {
            for await (const message of requests) for (const frame of agentFramesOf(message)) tunnel.dispatch(frame);
            tunnel.close(lost('the agent closed it'));
          } catch (err) {
            tunnel.close(lost(`it failed: ${(err as Error).message}`));
          }
        })();
        try {
          const hello = { clusterId, replicaId: opts.replicaId, replicaCount: opts.replicas.count };
          yield { frames: [{ streamId: 0, kind: { case: 'hello', value: hello } }] };
          for await (const frames of tunnel.outgoing) yield proxyMessage(frames);
        } finally {
          ctx.signal.removeEventListener('abort', onAbort);
          opts.registry.remove(tunnel);
          tunnel.close(lost('it ended'));
          opts.presence.disconnected(held);
          opts.log.info({ clusterId }, 'tunnel closed');
        }
      },
    });
  };
}
