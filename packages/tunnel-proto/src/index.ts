// The tunnel between the cluster proxy and the tunnel agent: one protocol, one outgoing queue.
export * from './gen/gsp/tunnel/v1/tunnel_pb.js';
export { BatchQueue, frameDataBytes } from './queue.js';
export type { BatchQueueOptions } from './queue.js';
export { fromHeaderBlock, toHeaderBlock } from './headers.js';
