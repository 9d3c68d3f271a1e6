import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';
import { endStreamToJson } from '@connectrpc/connect/protocol-connect';
import type pg from 'pg';
import { clusterOfAgentToken, hashAgentToken } from '@gsp/platform-contract';
import { bearerToken } from '@gsp/service-kit';
import type { Logger } from '@gsp/service-kit';
import {
  agentFramesIn,
  codeLabel,
  END_STREAM_FLAG,
  envelope,
  EnvelopeReader,
  HELD_REPLICAS_HEADER,
  proxyEnvelope,
  TUNNEL_CONTENT_TYPE,
} from '@gsp/tunnel-proto';
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
  log: Logger;
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
function holdsReplica(header: string | undefined, replicaId: string): boolean {
  if (!header) return false;
  return header.split(',', HELD_REPLICAS_MAX).some((id) => id.trim() === replicaId);
}

/** A request header's one value (HTTP/2 may repeat a header; the first counts). */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The cluster the agent's token opens, and the token's hash (a rotation makes the tunnel stale). */
async function authenticate(
  pool: pg.Pool,
  headers: IncomingHttpHeaders,
): Promise<{ clusterId: string; tokenHash: string }> {
  const token = bearerToken(header(headers, 'authorization'));
  if (!token)
    throw new ConnectError('an agent token is required (authorization: Bearer <token>)', Code.Unauthenticated);
  const cluster = await clusterOfAgentToken(pool, token);
  if (cluster === undefined) {
    throw new ConnectError(
      'unknown agent token: register the cluster (or rotate its token) and use the token it returned',
      Code.Unauthenticated,
    );
  }
  const claimed = header(headers, 'x-gsp-cluster-id');
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

/** The last envelope of the stream: its error (none when it ended well) and the error's metadata as trailers. */
function endStream(error: ConnectError | undefined): Buffer {
  return envelope(END_STREAM_FLAG, Buffer.from(JSON.stringify(endStreamToJson(new Headers(), error, undefined))));
}

/**
 * The Connect protocol's answer to the tunnel RPC, written on the HTTP/2 stream itself: its
 * headers once, then envelopes, then the end of the stream with its error, if any.
 */
class RpcAnswer {
  private ended = false;
  private waiting = false;

  constructor(private readonly stream: ServerHttp2Stream) {}

  get open(): boolean {
    return !this.ended && !this.stream.destroyed;
  }

  private respond(): void {
    if (!this.stream.headersSent) this.stream.respond({ ':status': 200, 'content-type': TUNNEL_CONTENT_TYPE });
  }

  /** Writes an envelope; false when the stream is backed up (write again after `whenWritable`). */
  write(bytes: Buffer): boolean {
    if (!this.open) return true;
    this.respond();
    return this.stream.write(bytes);
  }

  /** Runs `callback` once the stream has taken what was written (at once if it has). */
  whenWritable(callback: () => void): void {
    if (!this.stream.writableNeedDrain) return callback();
    if (this.waiting) return;
    this.waiting = true;
    this.stream.once('drain', () => {
      this.waiting = false;
      callback();
    });
  }

  /** Ends the RPC; a refusal or failure is told to the agent as a Connect error. */
  end(error?: unknown): void {
    if (!this.open) return;
    this.ended = true;
    this.respond();
    const failure =
      error === undefined
        ? undefined
        : error instanceof ConnectError
          ? error
          : new ConnectError('the tunnel failed', Code.Internal);
    this.stream.end(endStream(failure));
  }
}

/**
 * The tunnel RPC on one HTTP/2 stream (`POST /gsp.tunnel.v1.TunnelService/Connect`, a Connect
 * bidi stream of `application/connect+proto`; the port has checked the method and media type).
 */
export function tunnelHandler(
  opts: TunnelServiceOptions,
): (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void {
  return (stream, headers) => {
    const answer = new RpcAnswer(stream);
    void accept(opts, headers, answer).then(
      (accepted) => {
        if (accepted) run(opts, stream, accepted, answer);
      },
      (err: unknown) => {
        answer.end(err);
        // Whatever the agent sent is read and dropped, so that the stream can close.
        stream.resume();
      },
    );
  };
}

/**
 * Authenticates the agent and applies the switch, the duplicate check and the drain; the tunnel, or a refusal
 * thrown.
 */
async function accept(
  opts: TunnelServiceOptions,
  headers: IncomingHttpHeaders,
  answer: RpcAnswer,
): Promise<{ tunnel: Tunnel; clusterId: string } | undefined> {
  const encoding = header(headers, 'connect-content-encoding');
  if (encoding !== undefined && encoding !== 'identity')
    throw new ConnectError(
      `the tunnel accepts no compression (connect-content-encoding: ${encoding})`,
      Code.Unimplemented,
    );
  refuseIfDraining(opts);
  let clusterId: string;
  let tokenHash: string;
  try {
    ({ clusterId, tokenHash } = await authenticate(opts.pool, headers));
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
  if (holdsReplica(header(headers, HELD_REPLICAS_HEADER), opts.replicaId)) {
    opts.metrics.tunnelConnections.inc({ result: 'duplicate' });
    throw new ConnectError(`the agent already holds a tunnel to replica ${opts.replicaId}`, Code.AlreadyExists);
  }
  // Again: the drain may have begun while the token and the switch were read.
  refuseIfDraining(opts);
  // The agent went away while it was checked: nothing to register.
  if (!answer.open) return undefined;
  opts.metrics.tunnelConnections.inc({ result: 'accepted' });
  return { tunnel: new Tunnel(clusterId, tokenHash), clusterId };
}

/** Registers an accepted tunnel and carries its frames both ways until either end closes it. */
function run(
  opts: TunnelServiceOptions,
  stream: ServerHttp2Stream,
  { tunnel, clusterId }: { tunnel: Tunnel; clusterId: string },
  answer: RpcAnswer,
): void {
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

  let finished = false;
  const finish = (error?: unknown): void => {
    if (finished) return;
    finished = true;
    opts.registry.remove(tunnel);
    tunnel.close(lost('it ended'));
    answer.end(error);
    opts.presence.disconnected(held);
    opts.log.info({ clusterId }, 'tunnel closed');
  };

  // Frames for the agent: each batch one envelope, written as soon as the stream takes it.
  const out = tunnel.outgoing;
  const pump = (): void => {
    if (finished) return;
    for (let batch = out.takeBatch(); batch !== undefined; batch = out.takeBatch()) {
      if (!answer.write(proxyEnvelope(batch))) return answer.whenWritable(pump);
    }
    if (out.closed) finish(out.failure);
  };
  const hello = { clusterId, replicaId: opts.replicaId, replicaCount: opts.replicas.count };
  answer.write(proxyEnvelope([{ streamId: 0, kind: { case: 'hello', value: hello } }]));
  out.consume(pump);

  // Frames from the agent, decoded where they arrived.
  const reader = new EnvelopeReader((flags, message) => {
    // A client sends no end-of-stream envelope; one would be a newer peer's: ignored.
    if ((flags & END_STREAM_FLAG) !== 0) return;
    for (const frame of agentFramesIn(message)) tunnel.dispatch(frame);
  });
  stream.on('data', (chunk: Buffer) => {
    if (finished) return;
    try {
      reader.push(chunk);
    } catch (err) {
      const failure = `it failed: ${(err as Error).message}`;
      tunnel.close(
        lost(failure),
        new ConnectError(`the tunnel's stream cannot be read: ${(err as Error).message}`, Code.InvalidArgument),
      );
    }
  });
  stream.on('end', () => {
    if (reader.pending > 0)
      tunnel.close(
        lost('it failed: cut in the middle of a message'),
        new ConnectError('the stream ended inside a message', Code.InvalidArgument),
      );
    else tunnel.close(lost('the agent closed it'));
  });
  stream.on('close', () => {
    tunnel.close(lost('the agent disconnected'));
    finish();
  });
  stream.on('error', () => undefined);
}
