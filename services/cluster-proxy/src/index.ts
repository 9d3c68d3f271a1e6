/** What other workspaces may import of the cluster proxy (package export `@gsp/cluster-proxy`): its configuration. */
export { loadConfig } from './config.js';
export type { ClusterProxyConfig } from './config.js';
