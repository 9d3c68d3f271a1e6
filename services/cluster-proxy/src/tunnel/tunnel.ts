import type { MessageInitShape } from '@bufbuild/protobuf';
import type { AgentFrame, ProxyFrameSchema } from '@gsp/tunnel-proto';
import { BatchQueue, frameDataBytes } from '@gsp/tunnel-proto';

export type ProxyFrameInit = MessageInitShape<typeof ProxyFrameSchema>;

/** Why a stream ended before its answer did, as kubectl is told: the code and message of a Kubernetes `Status`. */
export interface StreamCut {
  code: number;
  message: string;
}

/** The agent could not answer (its own message stays in its log: it may name internal addresses). */
const AGENT_FAILED: StreamCut = { code: 502, message: 'the cluster agent failed to answer' };

/** What a proxied request hears back from the agent. */
export interface StreamHandlers {
  /** `headers` is a header block (see the .proto). */
  onResponse(status: number, headers: string): void;
  onData(chunk: Uint8Array): void;
  onEnd(): void;
  /** The request failed at the agent, or the proxy cut it (the switch, a revoked right, the tunnel closing). */
  onError(cut: StreamCut): void;
  /** The agent cannot pass the request body on as fast as it comes: hold the source until `onResume`. */
  onPause(): void;
  onResume(): void;
}

export interface TunnelStream {
  /** Queues a chunk of the request body; `false` when the tunnel is backed up: hold the source until `whenDrained`. */
  write(chunk: Uint8Array): boolean;
  whenDrained(callback: () => void): void;
  end(): void;
  cancel(): void;
  /** The client reads slower than the cluster answers: the agent stops reading this stream's answer until `resume`. */
  pause(): void;
  resume(): void;
}

/** A stream's handlers and the subject it was opened for (whose rights it lives on). */
interface OpenStream extends StreamHandlers {
  subject: string;
}

/** One connected agent: many kubectl requests multiplexed over its bidi stream. */
export class Tunnel {
  /** Frames for the agent, sent in batches (one `ProxyMessage` each). */
  readonly outgoing = new BatchQueue<ProxyFrameInit>({ sizeOf: frameDataBytes });
  private readonly streams = new Map<number, OpenStream>();
  private nextId = 1;
  private closedWith: StreamCut | undefined;
  readonly connectedAt = Date.now();
  /** The agent said it is stopping (`drain`): no new requests here; those in flight finish. */
  agentDraining = false;
  /** Called once when the agent says it is stopping. */
  onAgentDrain: (() => void) | undefined;

  /** `agentTokenHash`: the token the agent authenticated with; a rotation makes it stale. */
  constructor(
    readonly clusterId: string,
    readonly agentTokenHash: string,
  ) {}

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  get activeStreams(): number {
    return this.streams.size;
  }

  /** The subjects of the live streams. */
  subjects(): Set<string> {
    const subjects = new Set<string>();
    for (const s of this.streams.values()) subjects.add(s.subject);
    return subjects;
  }

  /** Ends every live stream of `subject` (a watch, logs, exec) whose right to the cluster has ended. */
  closeStreamsOf(subject: string, cut: StreamCut): number {
    let closed = 0;
    for (const [streamId, s] of this.streams) {
      if (s.subject !== subject) continue;
      this.streams.delete(streamId);
      this.outgoing.push({ streamId, kind: { case: 'cancel', value: {} } });
      s.onError(cut);
      closed += 1;
    }
    return closed;
  }

  /** `end`: the request has no body (then `write` and `end` must not be called). `subject`: whose request it is. */
  open(
    method: string,
    path: string,
    headers: string,
    end: boolean,
    subject: string,
    handlers: StreamHandlers,
  ): TunnelStream {
    const streamId = this.nextId++;
    if (this.nextId > 0xffffffff) this.nextId = 1;
    if (this.closedWith !== undefined) {
      const cut = this.closedWith;
      queueMicrotask(() => handlers.onError(cut));
      return { write: () => true, whenDrained() {}, end() {}, cancel() {}, pause() {}, resume() {} };
    }
    this.streams.set(streamId, { ...handlers, subject });
    this.outgoing.push({ streamId, kind: { case: 'open', value: { method, path, headers, end } } });
    return {
      write: (chunk) => {
        if (this.streams.has(streamId)) this.outgoing.push({ streamId, kind: { case: 'data', value: chunk } });
        return !this.outgoing.full;
      },
      whenDrained: (callback) => this.outgoing.whenDrained(callback),
      end: () => {
        if (this.streams.has(streamId)) this.outgoing.push({ streamId, kind: { case: 'end', value: {} } });
      },
      cancel: () => {
        if (this.streams.delete(streamId)) this.outgoing.push({ streamId, kind: { case: 'cancel', value: {} } });
      },
      pause: () => {
        if (this.streams.has(streamId)) this.outgoing.push({ streamId, kind: { case: 'pause', value: {} } });
      },
      resume: () => {
        if (this.streams.has(streamId)) this.outgoing.push({ streamId, kind: { case: 'resume', value: {} } });
      },
    };
  }

  /** A frame about the tunnel itself (stream 0): the replica count, or that this replica drains. */
  control(kind: ProxyFrameInit['kind']): void {
    if (this.closedWith === undefined) this.outgoing.push({ streamId: 0, kind });
  }

  /** A frame from the agent. */
  dispatch(frame: AgentFrame): void {
    if (frame.streamId === 0) {
      if (frame.kind.case === 'drain' && !this.agentDraining) {
        this.agentDraining = true;
        this.onAgentDrain?.();
      }
      return;
    }
    const handlers = this.streams.get(frame.streamId);
    if (!handlers) return;
    switch (frame.kind.case) {
      case 'response': {
        const { status, headers, body, end } = frame.kind.value;
        handlers.onResponse(status, headers);
        if (body.byteLength > 0) handlers.onData(body);
        if (end) {
          this.streams.delete(frame.streamId);
          handlers.onEnd();
        }
        break;
      }
      case 'data':
        handlers.onData(frame.kind.value);
        break;
      case 'end':
        this.streams.delete(frame.streamId);
        handlers.onEnd();
        break;
      case 'error':
        this.streams.delete(frame.streamId);
        handlers.onError(AGENT_FAILED);
        break;
      case 'pause':
        handlers.onPause();
        break;
      case 'resume':
        handlers.onResume();
        break;
      default:
        break;
    }
  }

  /** Ends the agent's stream (with `error` as its status) and cuts every request in it with `cut`. */
  close(cut: StreamCut, error?: unknown): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = cut;
    this.outgoing.end(error);
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const s of streams) s.onError(cut);
  }
}

/** Someone waiting for a cluster's tunnel (`waitFor`). */
type Waiter = (tunnel: Tunnel | undefined) => void;

/**
 * The live tunnels by cluster id; a new connection from the same cluster replaces the old one. A
 * tunnel whose agent is stopping (`retire`) takes no new requests but stays live (in `all`) until
 * its streams end, so revocation and shutdown still reach it.
 */
export class TunnelRegistry {
  private readonly tunnels = new Map<string, Tunnel>();
  private readonly retired = new Set<Tunnel>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  /** When the switch last turned each cluster's agent away here (ms since the epoch). */
  private readonly offAt = new Map<string, number>();

  get(clusterId: string): Tunnel | undefined {
    return this.tunnels.get(clusterId);
  }

  /**
   * The cluster's tunnel, waiting up to `ms` for one to be registered (the agent may be
   * redialling); undefined when none came, `signal` aborted, or `stopWaiting` was called.
   */
  waitFor(clusterId: string, ms: number, signal?: AbortSignal): Promise<Tunnel | undefined> {
    const now = this.tunnels.get(clusterId);
    if (now || ms <= 0 || signal?.aborted) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiters = this.waiters.get(clusterId) ?? new Set<Waiter>();
      this.waiters.set(clusterId, waiters);
      const done: Waiter = (tunnel) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(clusterId) === waiters) this.waiters.delete(clusterId);
        resolve(tunnel);
      };
      const aborted = () => done(undefined);
      const timer = setTimeout(aborted, ms);
      signal?.addEventListener('abort', aborted, { once: true });
      waiters.add(done);
    });
  }

  /** Ends every wait with no tunnel (the replica is draining: no new tunnel will come). */
  stopWaiting(): void {
    for (const waiters of [...this.waiters.values()]) for (const done of [...waiters]) done(undefined);
  }

  add(tunnel: Tunnel): void {
    const previous = this.tunnels.get(tunnel.clusterId);
    this.tunnels.set(tunnel.clusterId, tunnel);
    previous?.close({ code: 502, message: `the agent of cluster ${tunnel.clusterId} reconnected; retry` });
    const waiters = this.waiters.get(tunnel.clusterId);
    if (waiters) for (const done of [...waiters]) done(tunnel);
  }

  /** The agent is stopping: new requests no longer go to `tunnel`; it stays live until it closes. */
  retire(tunnel: Tunnel): void {
    if (this.tunnels.get(tunnel.clusterId) !== tunnel) return;
    this.tunnels.delete(tunnel.clusterId);
    this.retired.add(tunnel);
  }

  remove(tunnel: Tunnel): void {
    if (this.tunnels.get(tunnel.clusterId) === tunnel) this.tunnels.delete(tunnel.clusterId);
    this.retired.delete(tunnel);
  }

  /** The switch turned `clusterId`'s agent away here (a live tunnel closed, or a dial refused): it will be back. */
  switchedOff(clusterId: string): void {
    this.offAt.set(clusterId, Date.now());
  }

  /** Whether the switch turned `clusterId`'s agent away here within the last `ms`. */
  switchedOffWithin(clusterId: string, ms: number): boolean {
    const at = this.offAt.get(clusterId);
    if (at === undefined) return false;
    if (Date.now() - at <= ms) return true;
    this.offAt.delete(clusterId);
    return false;
  }

  /** Every live tunnel, retired ones included. */
  all(): Tunnel[] {
    return [...this.tunnels.values(), ...this.retired];
  }
}
