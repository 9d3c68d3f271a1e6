import type { BatchQueue, Hello, ProxyFrame } from '@gsp/tunnel-proto';
import type { AgentEvents } from './events.js';
import { forward } from './forward.js';
import type { AgentFrameInit, Upstream } from './forward.js';
import type { KubeTarget } from './kube.js';

export interface ProxyFrontOptions {
  kube: KubeTarget;
  /** The tunnel's outgoing frames, where every stream answers. */
  out: BatchQueue<AgentFrameInit>;
  events: AgentEvents;
  /** The proxy's `hello`: the tunnel is up, at the replica it names. */
  onHello(hello: Hello): void;
  /** The replica's count of serving replicas changed. */
  onReplicas(count: number): void;
  /** The replica is shutting down: it sends no new requests on this tunnel. */
  onDrain(): void;
}

/**
 * What faces the proxy on one tunnel connection: its frames, each dispatched to the request it
 * belongs to (the agent's end of what the proxy's front opens for kubectl).
 */
export class ProxyFront {
  private readonly upstreams = new Map<number, Upstream>();
  private idle: (() => void)[] = [];

  constructor(private readonly options: ProxyFrontOptions) {}

  /** Requests the proxy opened that have not ended yet. */
  get inFlight(): number {
    return this.upstreams.size;
  }

  /** Resolves once no request is in flight (at once if none is). */
  whenIdle(): Promise<void> {
    if (this.upstreams.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private forget(streamId: number): void {
    if (!this.upstreams.delete(streamId) || this.upstreams.size > 0) return;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  }

  handle(frame: ProxyFrame): void {
    const { streamId } = frame;
    const { upstreams } = this;
    switch (frame.kind.case) {
      case 'hello':
        this.options.onHello(frame.kind.value);
        break;
      case 'replicas':
        this.options.onReplicas(frame.kind.value.count);
        break;
      case 'drain':
        this.options.onDrain();
        break;
      case 'open': {
        const { kube, out, events } = this.options;
        const forget = () => this.forget(streamId);
        upstreams.set(streamId, forward({ streamId, open: frame.kind.value, kube, out, events, forget }));
        break;
      }
      case 'data':
        upstreams.get(streamId)?.onData(frame.kind.value);
        break;
      case 'end':
        upstreams.get(streamId)?.onEnd();
        break;
      case 'cancel':
        upstreams.get(streamId)?.abort();
        this.forget(streamId);
        break;
      case 'pause':
        this.options.events.pause?.();
        upstreams.get(streamId)?.pause();
        break;
      case 'resume':
        upstreams.get(streamId)?.resume();
        break;
      default:
        break;
    }
  }

  /** The connection ended: every request still open is abandoned. */
  abortAll(): void {
    for (const [streamId, u] of this.upstreams) {
      u.abort();
      this.forget(streamId);
    }
  }
}
