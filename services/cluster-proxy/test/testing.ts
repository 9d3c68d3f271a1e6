/**
 * What other workspaces' tests may use of the cluster proxy's test pieces (package export
 * `@gsp/cluster-proxy/testing`): the whole platform in one process (API server, proxy, kube-lite
 * and an agent per cluster) and the real kubectl. The rest of test/ is this workspace's own.
 */
export {
  bearer,
  freePort,
  kubectl,
  kubectlProcess,
  ORG,
  OPERATOR,
  PLATFORM_ADMIN,
  redisPrefix,
  startStack,
  TEST_REDIS_URL,
  until,
} from './stack.js';
export type { KubectlResult, Stack, StackCluster, StackOptions } from './stack.js';
