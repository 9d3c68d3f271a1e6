import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import https from 'node:https';
import type { ClientRequest, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { TunnelService } from '@gsp/tunnel-proto';
import type { AgentFrameSchema, AgentMessageSchema, Open, ProxyFrame } from '@gsp/tunnel-proto';
import { BatchQueue, frameDataBytes, fromHeaderBlock, toHeaderBlock } from '@gsp/tunnel-proto';
import type { KubeTarget } from './kube.js';

type AgentFrameInit = MessageInitShape<typeof AgentFrameSchema>;

/** One `AgentMessage` per batch of queued frames. */
async function* messages(out: BatchQueue<AgentFrameInit>): AsyncIterable<MessageInitShape<typeof AgentMessageSchema>> {
  for await (const frames of out) yield { frames };
}

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface AgentOptions {
  proxyTunnelUrl: string;
  clusterId: string;
  agentToken: string;
  kube: KubeTarget;
  backoffInitialMs: number;
  backoffMaxMs: number;
  backoffResetMs: number;
  log: Logger;
}

/** Full jitter: a uniformly random wait up to the capped exponential step. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30)));
}

interface Upstream {
  onData(chunk: Uint8Array): void;
  onEnd(): void;
  abort(): void;
}

/** Serves one request from the proxy against the Kubernetes API, answering with frames on `out`. */
function serve(streamId: number, open: Open, kube: KubeTarget, out: BatchQueue<AgentFrameInit>, forget: () => void): Upstream {
  const headers: OutgoingHttpHeaders = {};
  const flat = fromHeaderBlock(open.headers);
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i] as string;
    const value = flat[i + 1] as string;
    const existing = headers[name];
    headers[name] = existing === undefined ? value : ([] as string[]).concat(existing as string | string[], value);
  }
  Object.assign(headers, kube.options.headers);
  const isUpgrade = headers.upgrade !== undefined;
  let done = false;
  const finish = () => {
    done = true;
    forget();
  };
  const send = (frame: AgentFrameInit) => {
    if (!done) out.push(frame);
  };
  const fail = (message: string) => {
    send({ streamId, kind: { case: 'error', value: message } });
    finish();
  };
  const request: ClientRequest = (kube.base.protocol === 'https:' ? https : http).request({
    ...kube.options,
    protocol: kube.base.protocol,
    hostname: kube.base.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: kube.base.port,
    path: kube.base.pathname.replace(/\/$/, '') + open.path,
    method: open.method,
    headers,
  });
  let socket: Duplex | undefined;
  request.on('response', (res) => {
    send({ streamId, kind: { case: 'response', value: { status: res.statusCode ?? 502, headers: toHeaderBlock(res.rawHeaders) } } });
    res.on('data', (chunk: Buffer) => send({ streamId, kind: { case: 'data', value: chunk } }));
    res.on('end', () => {
      send({ streamId, kind: { case: 'end', value: {} } });
      finish();
    });
    res.on('error', (err) => fail(err.message));
  });
  request.on('upgrade', (res, upgraded, head) => {
    socket = upgraded;
    send({ streamId, kind: { case: 'response', value: { status: 101, headers: toHeaderBlock(res.rawHeaders) } } });
    if (head.length > 0) send({ streamId, kind: { case: 'data', value: head } });
    upgraded.on('data', (chunk: Buffer) => send({ streamId, kind: { case: 'data', value: chunk } }));
    upgraded.on('end', () => {
      send({ streamId, kind: { case: 'end', value: {} } });
      finish();
    });
    upgraded.on('error', (err) => fail(err.message));
    upgraded.on('close', () => {
      send({ streamId, kind: { case: 'end', value: {} } });
      finish();
    });
  });
  request.on('error', (err) => fail(`the Kubernetes API could not be reached: ${err.message}`));
  if (isUpgrade) request.flushHeaders();
  return {
    onData(chunk) {
      if (socket) socket.write(chunk);
      else request.write(chunk);
    },
    onEnd() {
      if (socket) socket.end();
      else if (!isUpgrade) request.end();
    },
    abort() {
      finish();
      socket?.destroy();
      request.destroy();
    },
  };
}

export interface TunnelAgent {
  readonly connected: boolean;
  /** Connection attempts so far (for tests and metrics). */
  readonly attempts: number;
  /** Why the last attempt or connection ended, e.g. the proxy's `unavailable` with the policy message. */
  readonly lastError: ConnectError | undefined;
  stop(): Promise<void>;
}

/** Dials the proxy and serves its requests, reconnecting forever with full-jitter backoff. */
export function startAgent(opts: AgentOptions): TunnelAgent {
  const target = new URL(opts.proxyTunnelUrl);
  // Frames are small and latency-bound: disable Nagle on the tunnel's socket.
  const noDelay =
    target.protocol === 'http:'
      ? { createConnection: () => net.connect({ host: target.hostname, port: Number(target.port || 80), noDelay: true }) }
      : { createConnection: () => tls.connect({ host: target.hostname, port: Number(target.port || 443), servername: target.hostname, ALPNProtocols: ['h2'] }).setNoDelay(true) };
  const transport = createConnectTransport({ httpVersion: '2', baseUrl: opts.proxyTunnelUrl, nodeOptions: noDelay });
  const client = createClient(TunnelService, transport);
  const stopping = new AbortController();
  let connected = false;
  let attempts = 0;
  let lastError: ConnectError | undefined;

  async function runOnce(): Promise<number | undefined> {
    const out = new BatchQueue<AgentFrameInit>({ sizeOf: frameDataBytes });
    const upstreams = new Map<number, Upstream>();
    let connectedAt: number | undefined;
    try {
      const incoming = client.connect(messages(out), {
        signal: stopping.signal,
        headers: { authorization: `Bearer ${opts.agentToken}`, 'x-gsp-cluster-id': opts.clusterId },
      });
      const handle = (frame: ProxyFrame): void => {
        const { streamId } = frame;
        switch (frame.kind.case) {
          case 'hello':
            connected = true;
            connectedAt = Date.now();
            opts.log.info({ clusterId: frame.kind.value.clusterId }, 'tunnel connected');
            break;
          case 'open':
            upstreams.set(streamId, serve(streamId, frame.kind.value, opts.kube, out, () => upstreams.delete(streamId)));
            break;
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
          default:
            break;
        }
      };
      for await (const message of incoming) for (const frame of message.frames) handle(frame);
      return connectedAt;
    } finally {
      connected = false;
      out.end();
      for (const u of upstreams.values()) u.abort();
    }
  }

  const loop = (async () => {
    let attempt = 0;
    while (!stopping.signal.aborted) {
      attempts++;
      let wait: number;
      const before = Date.now();
      let connectedAt: number | undefined;
      try {
        connectedAt = await runOnce();
        opts.log.warn({}, 'tunnel closed by the proxy; reconnecting');
        wait = -1;
      } catch (err) {
        if (stopping.signal.aborted) break;
        const e = ConnectError.from(err);
        lastError = e;
        if (e.code === Code.Unauthenticated || e.code === Code.PermissionDenied) {
          opts.log.error({ code: Code[e.code], reason: e.rawMessage }, 'the proxy rejected the agent token; check AGENT_TOKEN and CLUSTER_ID (retrying at the backoff ceiling)');
          wait = opts.backoffMaxMs;
        } else {
          opts.log.warn({ code: Code[e.code], reason: e.rawMessage }, 'tunnel unavailable; reconnecting with backoff');
          wait = -1;
        }
      }
      if (Date.now() - (connectedAt ?? before) >= opts.backoffResetMs && connectedAt !== undefined) attempt = 0;
      if (wait < 0) wait = backoffDelay(attempt, opts.backoffInitialMs, opts.backoffMaxMs);
      attempt++;
      try {
        await sleep(wait, undefined, { signal: stopping.signal });
      } catch {
        break;
      }
    }
  })();

  return {
    get connected() {
      return connected;
    },
    get attempts() {
      return attempts;
    },
    get lastError() {
      return lastError;
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
