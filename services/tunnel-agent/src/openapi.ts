/**
 * What the agent's PORT serves (probes), as the `/openapi.json` it answers. The routes in app.ts
 * are declared with the schemas below, so the document and the answers agree. Prometheus scrapes
 * METRICS_PORT, which serves `GET /metrics` only.
 */
import { jsonResponse, PROBLEM, probeOperations, problemResponse } from '@gsp/service-kit';

const attempts = { type: 'integer', description: 'Connection attempts since the agent started.' } as const;

export const READY = {
  type: 'object',
  required: ['connected', 'attempts', 'tunnels', 'replicas'],
  properties: {
    connected: { const: true },
    attempts,
    tunnels: { type: 'integer', description: 'Tunnels open now, one per proxy replica (draining ones included).' },
    replicas: {
      type: 'integer',
      description:
        'How many proxy replicas serve, as they announce: the agent dials until it holds one tunnel to each.',
    },
  },
} as const;

/** Not ready: a problem, with the state of the tunnel as extension members. */
export const NOT_READY = {
  type: 'object',
  required: [...PROBLEM.required, 'connected', 'attempts'],
  properties: { ...PROBLEM.properties, connected: { const: false }, attempts },
} as const;

export const AGENT_PORT_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'GSP tunnel agent (health port)',
    version: '1.0.0',
    description:
      "Probes of the agent that connects a cluster to the platform's cluster proxy " +
      '(its Prometheus metrics are on METRICS_PORT). ' +
      'It is meant for the kubelet inside the cluster: nothing here takes credentials. ' +
      'Errors, an unknown path included, are application/problem+json.',
  },
  components: { schemas: { Problem: PROBLEM } },
  security: [],
  paths: probeOperations({
    healthz: 'The process runs (liveness)',
    readyz: {
      summary: 'A tunnel to the cluster proxy is connected (readiness)',
      responses: {
        '200': jsonResponse(READY, 'Connected.'),
        '503': problemResponse(
          'Not connected; `detail` gives the last failure ' +
            '(a refused agent token, the kill switch, an unreachable proxy).',
          NOT_READY,
        ),
      },
    },
  }),
} as const;
