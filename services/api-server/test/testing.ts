/**
 * What other workspaces' tests may use of the API server's test pieces (package export
 * `@gsp/api-server/testing`): the server on a fresh schema, tokens, tenants and clusters through
 * its API, and the console's sign-in stack. The rest of test/ is this workspace's own.
 */
export {
  bearer,
  build,
  cuttableDatabaseUrl,
  freshSchema,
  JWT_SECRET,
  PLATFORM_ADMIN,
  putMember,
  redisPrefix,
  registerCluster,
  seedTenant,
  TEST_REDIS_URL,
  token,
  until,
} from './helper.js';
export type { Built } from './helper.js';
export { CLIENT_ID, CLIENT_SECRET, startConsoleStack, startProvider } from './console-auth-stack.js';
export type { ConsoleStack, ConsoleStackOptions, ProviderOptions } from './console-auth-stack.js';
