/**
 * What the agent's PORT serves (probes and Prometheus), as the `/openapi.json` it answers. The
 * routes in app.ts are declared with the schemas below, so the document and the answers agree.
 */
import { CLIENT_ERROR_RESPONSES, jsonResponse, PROBLEM, problemResponse } from '@gsp/service-kit';

export const HEALTH = { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } } as const;

const attempts = { type: 'integer', description: 'Connection attempts since the agent started.' } as const;

export const READY = {
  type: 'object',
  required: ['connected', 'attempts'],
  properties: { connected: { const: true }, attempts },
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
      "Probes and metrics of the agent that connects a cluster to the platform's cluster proxy. " +
      'It is meant for the kubelet and Prometheus inside the cluster: nothing here takes credentials. ' +
      'Errors, an unknown path included, are application/problem+json.',
  },
  components: { schemas: { Problem: PROBLEM } },
  security: [],
  paths: {
    '/healthz': {
      get: {
        operationId: 'healthz',
        tags: ['operations'],
        summary: 'The process runs (liveness)',
        security: [],
        responses: { '200': jsonResponse(HEALTH, 'Alive.'), ...CLIENT_ERROR_RESPONSES },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readyz',
        tags: ['operations'],
        summary: 'The tunnel to the cluster proxy is connected (readiness)',
        security: [],
        responses: {
          '200': jsonResponse(READY, 'Connected.'),
          '503': problemResponse(
            'Not connected; `detail` gives the last failure (a refused agent token, the kill switch, an unreachable proxy).',
            NOT_READY,
          ),
          ...CLIENT_ERROR_RESPONSES,
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['operations'],
        summary: "Prometheus metrics (gsp_agent_*, and the process's)",
        security: [],
        responses: {
          '200': {
            description: 'The text exposition format.',
            content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } },
          },
          ...CLIENT_ERROR_RESPONSES,
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        tags: ['operations'],
        summary: 'This document',
        security: [],
        responses: {
          '200': jsonResponse({ type: 'object' }, 'The OpenAPI document of this port.'),
          ...CLIENT_ERROR_RESPONSES,
        },
      },
    },
  },
} as const;
