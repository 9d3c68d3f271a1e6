/**
 * What the kubectl port (PORT) serves, as the `/openapi.json` it answers (the agents' port has its
 * own, in tunnel/port.ts). The kubectl traffic is routed by hand (see `serveCluster` in front.ts),
 * so its document is written here, beside it; the health routes are declared with the schemas below.
 */
import { jsonResponse, PROBLEM, probeOperations } from '@gsp/service-kit';

/** A Kubernetes `Status` (see `status` in forward.ts): what kubectl prints. */
const STATUS = {
  type: 'object',
  required: ['kind', 'apiVersion', 'status', 'message', 'reason', 'code'],
  properties: {
    kind: { const: 'Status' },
    apiVersion: { const: 'v1' },
    metadata: { type: 'object' },
    status: { const: 'Failure' },
    message: { type: 'string' },
    reason: { type: 'string', examples: ['Unauthorized', 'Gone', 'BadGateway'] },
    code: { type: 'integer' },
  },
} as const;

export const READY = {
  type: 'object',
  required: ['status', 'tunnels'],
  properties: { status: { const: 'ok' }, tunnels: { type: 'integer', description: 'connected tunnel agents' } },
} as const;

export const DRAINING = {
  type: 'object',
  required: ['status', 'tunnels'],
  properties: {
    status: { const: 'draining' },
    tunnels: { type: 'integer', description: 'tunnels still open while requests in flight finish' },
  },
} as const;

const refusal = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Status' } } },
});

/** The cluster and the Kubernetes API path a kubectl request names. */
const CLUSTER_PARAMETERS = [
  {
    name: 'clusterId',
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: "The id the cluster was registered with, as in the kubeconfig's server URL.",
  },
  {
    name: 'path',
    in: 'path',
    required: true,
    schema: { type: 'string', examples: ['api/v1/namespaces/default/pods'] },
    description:
      'The rest of the path, slashes included (OpenAPI has no template for several segments), ' +
      'and the query string: both reach the cluster unchanged.',
  },
];

/** The extra media types a PATCH takes, besides those of any body. */
const PATCH_TYPES = {
  'application/merge-patch+json': { schema: { type: 'object' } },
  'application/strategic-merge-patch+json': { schema: { type: 'object' } },
  'application/json-patch+json': { schema: { type: 'array' } },
  'application/apply-patch+yaml': { schema: { type: 'string' } },
};

/** The body of a POST, PUT or PATCH: passed to the cluster as it comes. */
const requestBody = (method: string) => ({
  description: 'Passed to the cluster as it comes, in any media type it accepts.',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object' },
          spec: { type: 'object' },
          data: { type: 'object' },
        },
      },
    },
    'application/yaml': { schema: { type: 'string' } },
    'application/vnd.kubernetes.protobuf': { schema: { type: 'string', format: 'binary' } },
    ...(method === 'patch' ? PATCH_TYPES : {}),
  },
});

/** What the cluster answers, and the proxy's own refusals. */
const CLUSTER_RESPONSES = {
  '101': { description: 'Switching Protocols: the cluster accepted an upgrade.' },
  '200': { description: "The cluster's answer (any status it gives), passed through." },
  '400': refusal(
    'The cluster id is not valid percent-encoding, ' +
      'or a request header cannot cross the tunnel (a line break in its value).',
  ),
  '401': refusal(
    'No bearer token, or one that is not valid or was issued for another cluster (`WWW-Authenticate: Bearer`).',
  ),
  '403': refusal("The token's subject no longer holds admin or operator in the cluster's tenant."),
  '404': refusal(
    'The cluster was deleted from the platform, or the path does not name one (`/clusters/{clusterId}/...`).',
  ),
  '410': refusal(
    'CLI access (the kill switch `cli_access.enabled`) is off for this cluster; the message says who turned it off.',
  ),
  '502': refusal(
    'The cluster has no connected tunnel agent, its tunnel closed under the request, ' +
      'or its agent could not reach the Kubernetes API.',
  ),
  '503': refusal(
    "Access cannot be checked right now (the platform's store is unavailable), or the agent's token was rotated; " +
      'or no tunnel came within TUNNEL_WAIT while the agent is reconnecting (it is connected to another replica, ' +
      'or the switch just came back on), or this replica is shutting down: `Retry-After` says when to retry.',
  ),
  '504': refusal("The cluster's Kubernetes API did not answer within its agent's KUBE_REQUEST_TIMEOUT."),
};

const clusterOperation = (method: string, body: boolean) => ({
  operationId: `${method}Cluster`,
  tags: ['kubectl'],
  summary: `${method.toUpperCase()} any Kubernetes API path of a registered cluster, through its tunnel agent`,
  description:
    "The request goes to the cluster as the token's subject (Impersonate-User); identity headers the caller sends " +
    '(Impersonate-*, X-Remote-*), its forwarding chain (X-Forwarded-*, X-Real-Ip, Forwarded, Via) and its ' +
    'Authorization are dropped; X-Forwarded-For carries the address the proxy accepted the connection from. ' +
    "The answer, whatever its status (the cluster's own 4xx `Status` bodies, or the plain-text 404 " +
    'kube-apiserver gives a path it does not serve), is passed through as the cluster sent it; ' +
    "the statuses below are the proxy's own refusals, all Kubernetes `Status` bodies as kubectl expects. " +
    'An upgrade (exec, attach, port-forward) answered 101 by the cluster carries its stream on this connection.',
  security: [{ kubeconfigToken: [] }],
  parameters: CLUSTER_PARAMETERS,
  ...(body ? { requestBody: requestBody(method) } : {}),
  responses: CLUSTER_RESPONSES,
});

/** `/openapi.json` of PORT, the kubectl side. */
export const KUBECTL_PORT_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'GSP cluster proxy (kubectl port)',
    version: '1.0.0',
    description:
      'kubectl and helm reach registered clusters here, with the kubeconfig downloaded from the platform API. ' +
      'Paths under /clusters/ answer errors as Kubernetes `Status` bodies; ' +
      'every other path answers them as application/problem+json.',
  },
  components: {
    securitySchemes: {
      kubeconfigToken: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'The token of a kubeconfig downloaded from the platform API for this cluster ' +
          '(ES256, audience gsp-cluster-proxy).',
      },
    },
    schemas: { Status: STATUS, Problem: PROBLEM },
  },
  paths: {
    '/clusters/{clusterId}/{path}': {
      get: clusterOperation('get', false),
      post: clusterOperation('post', true),
      put: clusterOperation('put', true),
      patch: clusterOperation('patch', true),
      delete: clusterOperation('delete', false),
    },
    ...probeOperations({
      readyz: {
        summary: 'The proxy serves, and how many agents are connected',
        responses: {
          '200': jsonResponse(READY, 'Ready.'),
          '503': jsonResponse(DRAINING, 'Draining (SIGTERM): send new connections to another replica.'),
        },
      },
    }),
  },
} as const;
