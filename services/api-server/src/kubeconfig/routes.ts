import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ClusterParams, problem, problemResponses } from '../schemas.js';
import { existingCluster } from '../cluster-store/store.js';
import { BadRequest, Gone } from '../errors.js';
import { actorOf } from '../auth/actor.js';
import { renderKubeconfig } from './signer.js';
import { platformAdminCheck } from '../flags/caller.js';
import type { KubeconfigSigner } from './signer.js';
import { KUBECTL_PERMISSION, subjectProblem } from '@gsp/platform-contract';
import { CliAccessSchema, cliAccessJson, cliAccessRefusal } from './access.js';

export interface KubeconfigRoutesOptions {
  platformId: string;
  proxyPublicUrl: string;
  proxyCa?: string | undefined;
  proxyInsecureSkipTlsVerify?: boolean | undefined;
  signer: KubeconfigSigner;
}

const tags = ['access'];
const Jwk = Type.Object(
  { kty: Type.Optional(Type.String()), kid: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
const Jwks = Type.Object({ keys: Type.Array(Jwk) }, { description: 'a JWK Set (RFC 7517)' });

/** What kubectl needs: a cluster's access state, a kubeconfig, and the keys that verify its token. */
const kubeconfigRoutes: FastifyPluginAsyncTypebox<KubeconfigRoutesOptions> = async (app, opts) => {
  const proxyUrl = opts.proxyPublicUrl.replace(/\/+$/, '');
  const isPlatformAdmin = platformAdminCheck(app.pg, opts.platformId);

  app.route({
    method: 'GET',
    url: '/.well-known/jwks.json',
    config: { public: true },
    schema: {
      tags,
      description: 'Keys that verify kubeconfig tokens (read by the cluster proxy).',
      response: { 200: Jwks },
    },
    handler: async (_request, reply) => reply.header('cache-control', 'public, max-age=300').send(opts.signer.jwks),
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters/:id/access',
    config: { permission: 'tenant.read' },
    schema: {
      tags,
      params: ClusterParams,
      response: { 200: Type.Object({ cliAccess: CliAccessSchema, proxyUrl: Type.String() }), ...problemResponses },
    },
    handler: async (request) => {
      const cluster = await existingCluster(app.pg, request.params.org, request.params.id);
      const access = await app.flagsClient.cliAccess({ org: cluster.org, clusterId: cluster.id });
      return {
        cliAccess: cliAccessJson(access, await isPlatformAdmin(actorOf(request))),
        proxyUrl: `${proxyUrl}/clusters/${cluster.id}`,
      };
    },
  });

  app.route({
    method: 'GET',
    url: '/api/v1/tenants/:org/clusters/:id/kubeconfig',
    config: { permission: KUBECTL_PERMISSION },
    schema: {
      tags,
      params: ClusterParams,
      description: 'A kubeconfig (application/yaml) with a short-lived token for the caller.',
      response: {
        200: { description: 'a kubeconfig for kubectl', content: { 'application/yaml': { schema: Type.String() } } },
        ...problemResponses,
        410: problem('kubectl access to this cluster is turned off (`cli_access.enabled`)'),
      },
    },
    handler: async (request, reply) => {
      const cluster = await existingCluster(app.pg, request.params.org, request.params.id);
      const access = await app.flagsClient.cliAccess({ org: cluster.org, clusterId: cluster.id });
      if (!access.value) throw new Gone(`${cliAccessRefusal(cluster.id, access)}; kubeconfig downloads are disabled`);
      const subject = actorOf(request);
      // The proxy would refuse the token at every request: say so now, while the caller can act on it.
      const problem = subjectProblem(subject);
      if (problem !== undefined)
        throw new BadRequest(
          `your subject cannot be impersonated at a cluster, so no kubeconfig is issued: ${problem}`,
        );
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
  });
};

export default kubeconfigRoutes;
