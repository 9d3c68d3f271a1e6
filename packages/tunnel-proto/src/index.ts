// The tunnel between the cluster proxy and the tunnel agent: one protocol, one outgoing queue.
export * from './gen/gsp/tunnel/v1/tunnel_pb.js';
export { BatchQueue, frameDataBytes, TUNNEL_PING_INTERVAL_MS, TUNNEL_WINDOW_BYTES } from './queue.js';
export type { BatchQueueOptions } from './queue.js';
export { agentEnvelope, agentFramesIn, ENVELOPE_PREFIX_BYTES, proxyEnvelope, proxyFramesIn } from './messages.js';
export type { AgentFrameInit, ProxyFrameInit } from './messages.js';
export {
  COMPRESSED_FLAG,
  END_STREAM_FLAG,
  envelope,
  ENVELOPE_MAX_BYTES,
  EnvelopeError,
  EnvelopeReader,
  TUNNEL_CONTENT_TYPE,
  TUNNEL_RPC_PATH,
} from './envelopes.js';
export { codeLabel, fromHeaderBlock, HeaderBlockError, toHeaderBlock } from './headers.js';
export type { HeaderBlockErrorCode } from './headers.js';
export { useNodeTextEncoding } from './text.js';
export { drainingWriter, Valve } from './valve.js';
/**
 * The trailer of a tunnel refusal that says when the switch that refused it expires (RFC 3339):
 * the agent comes back at that moment instead of up to its backoff ceiling later.
 */
export const RETRY_AT_HEADER = 'gsp-retry-at';
/**
 * The agent's Connect request header naming the replicas it holds a tunnel to now (a comma list of
 * Hello.replica_id, draining ones included): a replica named there refuses the tunnel with
 * `already_exists` before registering it, so a duplicate never replaces the agent's tunnel.
 */
export const HELD_REPLICAS_HEADER = 'x-gsp-held-replicas';
