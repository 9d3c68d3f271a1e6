import { randomUUID } from 'node:crypto';
import { Code, ConnectError } from '@connectrpc/connect';
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import type pg from 'pg';
import { clusterOfAgentToken, hashAgentToken } from '@gsp/platform-contract';
import { bearerToken } from '@gsp/service-kit';
import { codeLabel, TunnelService } from '@gsp/tunnel-proto';
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

export function tunnelRoutes(opts: TunnelServiceOptions): (router: ConnectRouter) => void {
  return (router) => {
    router.service(TunnelService, {
      async *connect(
        requests: AsyncIterable<AgentMessage>,
        ctx: HandlerContext,
      ): AsyncIterable<MessageInitShape<typeof ProxyMessageSchema>> {
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
          throw tunnelRefusal(decision);
        }
        opts.metrics.tunnelConnections.inc({ result: 'accepted' });

        const tunnel = new Tunnel(clusterId, tokenHash);
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
            for await (const message of requests) for (const frame of message.frames) tunnel.dispatch(frame);
            tunnel.close(lost('the agent closed it'));
          } catch (err) {
            tunnel.close(lost(`it failed: ${(err as Error).message}`));
          }
        })();
        try {
          yield { frames: [{ streamId: 0, kind: { case: 'hello', value: { clusterId } } }] };
          for await (const frames of tunnel.outgoing) yield { frames };
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
