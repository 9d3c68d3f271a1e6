/**
 * What other workspaces may import of the control plane (package export `@gsp/control-plane`): the app and its
 * configuration.
 */
export { buildApp } from './app.js';
export type { BuildOptions } from './app.js';
export { loadConfig } from './config/index.js';
export type { ControlPlaneConfig, LoadOptions } from './config/index.js';
