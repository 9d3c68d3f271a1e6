import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ClusterParams, problemResponses } from '../../schemas.js';
import { findCluster } from '../../clusters/store.js';
import { Gone, NotFound } from '../../errors.js';
import { actorOf } from '../../plugins/auth.js';
import { renderKubeconfig } from '../../kubeconfig/signer.js';
import type { KubeconfigSigner } from '../../kubeconfig/signer.js';
import { CLI_ACCESS_DISABLED, KUBECTL_PERMISSION } from '@gsp/platform-contract';


export interface AccessRoutesOptions {
  proxyPublicUrl: string;
  proxyCa?: string | undefined;
  proxyInsecureSkipTlsVerify?: boolean | undefined;
  signer: KubeconfigSigner;
}

const tags = ['access'];
const CliAccess = Type.Object({ enabled: Type.Boolean(), source: Type.String(), envPinned: Type.Boolean() });

const accessRoutes: FastifyPluginAsyncTypebox<AccessRoutesOptions> = async (app, opts) => {
  const proxyUrl = opts.proxyPublicUrl.replace(/\/+$/, '');

  app.get(
    '/.well-known/jwks.json',
    { config: { public: true }, schema: { tags, description: 'Keys that verify kubeconfig tokens (read by the cluster proxy).' } },
    async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(opts.signer.jwks),
  );

  app.get(
    '/api/v1/tenants/:org/clusters/:id/access',
    { config: { permission: 'tenant.read' }, schema: { tags, params: ClusterParams, response: { 200: Type.Object({ cliAccess: CliAccess, proxyUrl: Type.String() }), ...problemResponses } } },
    async (request) => {
      const cluster = await findCluster(app.pg, request.params.org, request.params.id);
      if (!cluster) throw new NotFound(`cluster ${request.params.id} not found in tenant ${request.params.org}`);
      const access = await app.flagsClient.cliAccess({ org: cluster.org, clusterId: cluster.id });
      return { cliAccess: { enabled: access.value, source: access.source, envPinned: access.envPinned }, proxyUrl: `${proxyUrl}/clusters/${cluster.id}` };
    },
  );

  app.get(
    '/api/v1/tenants/:org/clusters/:id/kubeconfig',
    {
      config: { permission: KUBECTL_PERMISSION },
      schema: { tags, params: ClusterParams, description: 'A kubeconfig (application/yaml) with a short-lived token for the caller.', response: { ...problemResponses, 410: Type.Ref('Problem') } },
    },
    async (request, reply) => {
      const cluster = await findCluster(app.pg, request.params.org, request.params.id);
      if (!cluster) throw new NotFound(`cluster ${request.params.id} not found in tenant ${request.params.org}`);
      const access = await app.flagsClient.cliAccess({ org: cluster.org, clusterId: cluster.id });
      if (!access.value) throw new Gone(`${CLI_ACCESS_DISABLED}; kubeconfig downloads for cluster ${cluster.id} are disabled`);
      const subject = actorOf(request);
      const { token } = await opts.signer.issue(subject, cluster.id);
      const body = renderKubeconfig({
        clusterName: `${cluster.org}-${cluster.name}`,
        server: `${proxyUrl}/clusters/${cluster.id}`,
        user: subject,
        token,
        ca: opts.proxyCa,
        insecureSkipTlsVerify: opts.proxyInsecureSkipTlsVerify,
      });
      return reply.type('application/yaml').header('cache-control', 'no-store').send(body);
    },
  );
};

export default accessRoutes;
