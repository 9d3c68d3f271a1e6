import fp from 'fastify-plugin';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { ApiKeyStore } from '../apikeys/store.js';

declare module 'fastify' {
  interface FastifyInstance {
    kube: { core: CoreV1Api; custom: CustomObjectsApi; namespace: string };
    apikeys: ApiKeyStore;
  }
}

export interface KubePluginOptions {
  /** Unset: the in-cluster service account. */
  kubeconfig: string | undefined;
  namespace: string;
  apikeyPrefix: string;
}

/** The one place that builds the KubeConfig; the rest of the service sees typed API clients. */
export default fp<KubePluginOptions>(
  async (app, opts) => {
    const kc = new KubeConfig();
    if (opts.kubeconfig !== undefined) kc.loadFromFile(opts.kubeconfig);
    else kc.loadFromCluster();
    app.decorate('kube', { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi), namespace: opts.namespace });
    const store = new ApiKeyStore(kc, opts.namespace, opts.apikeyPrefix, app.log);
    app.decorate('apikeys', store);
    await store.start();
    app.addHook('onClose', async () => {
      await store.stop();
    });
  },
  { name: 'kube' },
);
