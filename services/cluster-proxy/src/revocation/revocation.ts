import { Code, ConnectError } from '@connectrpc/connect';
import type { EventBus } from '@gsp/events';
import { CLI_ACCESS_ENABLED } from '@gsp/flags-client';
import type { FlagsClient } from '@gsp/flags-client';
import type { Logger } from '@gsp/service-kit';
import { ACCESS_CHANGED_EVENT, isAccessEvent } from '@gsp/platform-contract';
import { tunnelRefusal } from '../access.js';
import type { SwitchDecision } from '../access.js';
import type { ProxyMetrics } from '../metrics.js';
import type { Rights } from '../rights.js';
import type { StreamCut, Tunnel, TunnelRegistry } from '../tunnel/tunnel.js';

export interface RevocationOptions {
  registry: TunnelRegistry;
  rights: Rights;
  cliAccess(clusterId: string): Promise<SwitchDecision>;
  flags: FlagsClient;
  /** The process's event bus, for `access.changed`. */
  events: EventBus;
  metrics: ProxyMetrics;
  log: Logger;
  /** How often live tunnels are re-checked besides change notifications. */
  intervalMs: number;
}

export interface RevocationWatch {
  /** Re-checks every live tunnel and stream now and closes those whose switch is off or whose right ended. */
  sweep(): Promise<void>;
  stop(): void;
}

/**
 * Closes a tunnel whose cluster was deleted or whose agent token was replaced; the agent's reconnect is then
 * refused.
 */
function revokeTunnel(
  { log, metrics }: RevocationOptions,
  tunnel: Tunnel,
  reason: 'cluster_deleted' | 'agent_token_rotated',
): void {
  if (tunnel.closed) return;
  const message =
    reason === 'cluster_deleted'
      ? `cluster ${tunnel.clusterId} was deleted from the platform`
      : `the agent token of cluster ${tunnel.clusterId} was rotated`;
  log.info({ clusterId: tunnel.clusterId, reason }, 'closing tunnel: its right ended');
  metrics.closedByRevocation.inc({ what: 'tunnel', reason });
  // A deleted cluster is gone for good (404); a rotated token is the agent's business, kubectl may retry (503).
  const cut: StreamCut = { code: reason === 'cluster_deleted' ? 404 : 503, message };
  tunnel.close(cut, new ConnectError(message, Code.Unauthenticated));
}

/** Closes the streams of the tunnel's subjects whose right has ended. */
async function sweepSubjects({ rights, log, metrics }: RevocationOptions, tunnel: Tunnel): Promise<void> {
  for (const subject of tunnel.subjects()) {
    const right = await rights.kubectl(tunnel.clusterId, subject);
    // Only a right that has ended closes streams; an unreadable store (503) leaves them be.
    if (right.allowed || right.status === 503) continue;
    const closed = tunnel.closeStreamsOf(subject, { code: right.status, message: right.message });
    if (closed > 0) {
      log.info({ clusterId: tunnel.clusterId, subject, streams: closed }, 'closing streams: the subject lost access');
      metrics.closedByRevocation.inc({ what: 'stream', reason: 'member' }, closed);
    }
  }
}

/** Re-checks one live tunnel: its cluster, its agent token, its switch, then its subjects. */
async function sweepTunnel(options: RevocationOptions, tunnel: Tunnel): Promise<void> {
  const { rights, cliAccess, registry, log, metrics } = options;
  // A store that cannot be read closes nothing here (requests are refused meanwhile in strict mode).
  const cluster = await rights.cluster(tunnel.clusterId).catch(() => null);
  if (cluster === undefined) return revokeTunnel(options, tunnel, 'cluster_deleted');
  if (cluster !== null && cluster.agentTokenHash !== tunnel.agentTokenHash)
    return revokeTunnel(options, tunnel, 'agent_token_rotated');
  const decision = await cliAccess(tunnel.clusterId);
  if (!decision.allowed && !tunnel.closed) {
    log.info({ clusterId: tunnel.clusterId }, 'closing tunnel: CLI access turned off');
    metrics.tunnelsClosedBySwitch.inc();
    registry.switchedOff(tunnel.clusterId);
    tunnel.close({ code: 410, message: decision.message }, tunnelRefusal(decision));
    return;
  }
  await sweepSubjects(options, tunnel);
}

/** Runs `once` coalesced: at most one run at a time, and one more follows if asked for meanwhile. */
function coalesced(once: () => Promise<void>, log: Logger): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await once();
        } while (again);
      } catch (err) {
        log.warn({ err }, 'tunnel sweep failed');
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
}

/**
 * Closes what the switch or a right no longer allows: live tunnels (switch off, cluster deleted,
 * agent token rotated) and the streams of subjects who lost access. Sweeps on every change the
 * flags client hears and every `intervalMs` besides.
 */
export function watchRevocations(options: RevocationOptions): RevocationWatch {
  const { registry, rights, flags, events, log } = options;
  const sweep = coalesced(async () => {
    for (const tunnel of registry.all()) await sweepTunnel(options, tunnel);
  }, log);
  const unsubscribeFlags = flags.onChange(CLI_ACCESS_ENABLED, () => void sweep());
  // A membership change, a deleted cluster or a rotated agent token: drop what it may have changed
  // and re-check every live tunnel and stream against the store (a tunnel whose agent already came
  // back with the new token compares equal and stays).
  const unsubscribeAccess = events.subscribe(ACCESS_CHANGED_EVENT, {
    event(event) {
      if (!isAccessEvent(event)) return;
      rights.forget(event);
      void sweep();
    },
    resync() {
      rights.forgetAll();
      void sweep();
    },
  });
  const timer = setInterval(() => void sweep(), options.intervalMs);
  timer.unref();
  return {
    sweep,
    stop() {
      clearInterval(timer);
      unsubscribeFlags();
      unsubscribeAccess();
    },
  };
}
