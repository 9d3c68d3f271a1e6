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

  /** A frame from the agent. */
  dispatch(frame: AgentFrame): void {
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

/** The live tunnels by cluster id; a new connection from the same cluster replaces the old one. */
export class TunnelRegistry {
  private readonly tunnels = new Map<string, Tunnel>();

  get(clusterId: string): Tunnel | undefined {
    return this.tunnels.get(clusterId);
  }

  add(tunnel: Tunnel): void {
    const previous = this.tunnels.get(tunnel.clusterId);
    this.tunnels.set(tunnel.clusterId, tunnel);
    previous?.close({ code: 502, message: `the agent of cluster ${tunnel.clusterId} reconnected; retry` });
  }

  remove(tunnel: Tunnel): void {
    if (this.tunnels.get(tunnel.clusterId) === tunnel) this.tunnels.delete(tunnel.clusterId);
  }

  all(): Tunnel[] {
    return [...this.tunnels.values()];
  }
}
