import type { BatchQueue, ProxyFrame } from '@gsp/tunnel-proto';
import type { AgentEvents } from './agent.js';
import { forward } from './forward.js';
import type { AgentFrameInit, Upstream } from './forward.js';
import type { KubeTarget } from './kube.js';

export interface ProxyFrontOptions {
  kube: KubeTarget;
  /** The tunnel's outgoing frames, where every stream answers. */
  out: BatchQueue<AgentFrameInit>;
  events: AgentEvents;
  /** The proxy's `hello`: the tunnel is up, for the cluster it names. */
  onHello(clusterId: string): void;
}

/**
 * What faces the proxy on one tunnel connection: its frames, each dispatched to the request it
 * belongs to (the agent's end of what the proxy's front opens for kubectl).
 */
export class ProxyFront {
  private readonly upstreams = new Map<number, Upstream>();

  constructor(private readonly options: ProxyFrontOptions) {}

  handle(frame: ProxyFrame): void {
    const { streamId } = frame;
    const { upstreams } = this;
    switch (frame.kind.case) {
      case 'hello':
        this.options.onHello(frame.kind.value.clusterId);
        break;
      case 'open': {
        const { kube, out, events } = this.options;
        const forget = () => upstreams.delete(streamId);
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
        upstreams.delete(streamId);
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
    for (const u of this.upstreams.values()) u.abort();
  }
}
