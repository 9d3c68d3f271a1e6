/**
 * What other workspaces' tests may use of the control plane's test pieces (package export
 * `@gsp/control-plane/testing`): kube-lite for a test, audit and log capture, the Basic admin, a
 * Redis of its own, polling. The rest of test/ is this workspace's own.
 */
export { AuditCapture, BASIC_ADMIN, LogCapture, redisPrefix, startKube, TEST_REDIS_URL, until } from './helper.js';
