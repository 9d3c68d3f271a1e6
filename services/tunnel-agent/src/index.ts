/**
 * What other workspaces may import of the tunnel agent (package export `@gsp/tunnel-agent`): the
 * agent (the proxy's tests and benchmark run real ones in their process), its app and configuration.
 */
export { startAgent } from './agent/agent.js';
export type { AgentOptions, TunnelAgent } from './agent/agent.js';
export { kubeTarget } from './kube.js';
export type { KubeTarget } from './kube.js';
export { buildAgentApp } from './app.js';
export type { AgentApp } from './app.js';
export { loadConfig } from './config.js';
export type { TunnelAgentConfig } from './config.js';
