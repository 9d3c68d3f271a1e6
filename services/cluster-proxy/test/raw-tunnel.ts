import { ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Test } from 'tap';
import { TunnelService } from '@gsp/tunnel-proto';
import type { AgentMessageSchema, Hello, ProxyFrame } from '@gsp/tunnel-proto';
import { until } from './stack.js';

type AgentMessageInit = MessageInitShape<typeof AgentMessageSchema>;
type AgentFrameInit = NonNullable<AgentMessageInit['frames']>[number];

/** One tunnel opened by hand, as an agent would, to see every frame the proxy sends. */
export interface RawTunnel {
  /** The proxy's `hello`; rejects with the refusal. */
  hello: Promise<Hello>;
  /** Every frame received so far. */
  frames: ProxyFrame[];
  /** Resolves with the first frame received (so far or later) that `match` accepts. */
  frame(what: string, match: (frame: ProxyFrame) => boolean, ms?: number): Promise<ProxyFrame>;
  /** Sends frames to the proxy. */
  send(...frames: AgentFrameInit[]): void;
  /** Answers stream `streamId` with `status` and `body`, in one frame. */
  answer(streamId: number, status: number, body: string): void;
  /** Resolves when the proxy ended the tunnel: undefined when it closed it cleanly, else the error. */
  ended: Promise<ConnectError | undefined>;
  /** Closes the tunnel and its connection without a goodbye. */
  close(): void;
}

export interface RawTunnelOptions {
  clusterId: string;
  agentToken: string;
  /** The replica ids sent as `x-gsp-held-replicas`. */
  held?: string[];
}

/** Opens a tunnel to `tunnelUrl` on a connection of its own, closed with the test. */
export function rawTunnel(t: Test, tunnelUrl: string, options: RawTunnelOptions): RawTunnel {
  const sessionManager = new Http2SessionManager(tunnelUrl);
  const client = createClient(
    TunnelService,
    createConnectTransport({ httpVersion: '2', baseUrl: tunnelUrl, sessionManager }),
  );
  const abort = new AbortController();
  const pending: AgentMessageInit[] = [];
  let wake: (() => void) | undefined;
  /** The proxy ended the tunnel: our side ends too, as an agent's does. */
  let over = false;
  async function* outgoing(): AsyncIterable<AgentMessageInit> {
    while (!abort.signal.aborted && !over) {
      const next = pending.shift();
      if (next) yield next;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  const send = (...frames: AgentFrameInit[]) => {
    pending.push({ frames });
    wake?.();
  };
  const frames: ProxyFrame[] = [];
  let resolveHello: (hello: Hello) => void = () => undefined;
  let rejectHello: (err: unknown) => void = () => undefined;
  const hello = new Promise<Hello>((resolve, reject) => {
    resolveHello = resolve;
    rejectHello = reject;
  });
  hello.catch(() => undefined);
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.agentToken}`,
    'x-gsp-cluster-id': options.clusterId,
  };
  if (options.held) headers['x-gsp-held-replicas'] = options.held.join(',');
  const ended = (async () => {
    try {
      for await (const message of client.connect(outgoing(), { headers, signal: abort.signal }))
        for (const frame of message.frames) {
          frames.push(frame);
          if (frame.kind.case === 'hello') resolveHello(frame.kind.value);
        }
      rejectHello(new Error('the tunnel ended before hello'));
      over = true;
      wake?.();
      return undefined;
    } catch (err) {
      const error = ConnectError.from(err);
      rejectHello(error);
      return error;
    }
  })();
  const close = () => {
    abort.abort();
    wake?.();
    sessionManager.abort();
  };
  t.teardown(close);
  return {
    hello,
    frames,
    frame: (what, match, ms = 5000) => until(what, () => frames.find(match), ms, 5),
    send,
    answer: (streamId, status, body) =>
      send({
        streamId,
        kind: {
          case: 'response',
          value: { status, headers: 'content-type: text/plain', body: new TextEncoder().encode(body), end: true },
        },
      }),
    ended,
    close,
  };
}
