import { Type } from 'typebox';
import { namedSchema } from '../schemas.js';
import { CliAccessWithMessageSchema, RECORD_THAT_DECIDED } from '../kubeconfig/access.js';

const AgentToken = Type.String({ description: 'shown once; only its hash is stored' });
const TunnelUrl = Type.String({
  description: "where the cluster's tunnel agent dials the cluster proxy (PROXY_TUNNEL_PUBLIC_URL): its proxyTunnelUrl",
});
const ClusterSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  org: Type.String(),
  createdBy: Type.String(),
  createdAt: Type.String(),
});
const AgentSchema = Type.Object(
  {
    connected: Type.Boolean({ description: 'a cluster proxy replica holds a live tunnel from its agent' }),
    since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'RFC 3339: since when (its oldest live tunnel); null while disconnected',
    }),
  },
  {
    description:
      "the cluster's tunnel agent as the proxies last renewed it: " +
      'a proxy that dies without a goodbye stops counting when its lease (PRESENCE_LEASE) runs out',
  },
);
/** A cluster as the reads answer it, with its agent's presence and its effective CLI access. */
export const ClusterReadSchema = namedSchema(
  'Cluster',
  Type.Object({
    ...ClusterSchema.properties,
    agent: AgentSchema,
    cliAccess: Type.Object(CliAccessWithMessageSchema.properties, {
      description:
        "the cluster's effective cli_access.enabled, as GET .../access answers it, with kubectl's refusal; " +
        RECORD_THAT_DECIDED,
    }),
  }),
);
/** What a new agent token is answered with. */
export const WithAgentToken = namedSchema(
  'ClusterWithAgentToken',
  Type.Object({ ...ClusterSchema.properties, agentToken: AgentToken, tunnelUrl: TunnelUrl }),
);
