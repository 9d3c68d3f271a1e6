/**
 * What other workspaces may import of the API server (package export `@gsp/api-server`): the app
 * and its configuration, as the server builds them, and the embedded PostgreSQL `npm start` runs.
 */
export { buildApp } from './app.js';
export { DEFAULT_JWT_AUDIENCE, loadConfig } from './config/index.js';
export type { ApiServerConfig } from './config/index.js';
export { startEmbeddedPostgres } from './db/embedded.js';
export type { EmbeddedDatabase } from './db/embedded.js';
