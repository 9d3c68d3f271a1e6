import fp from 'fastify-plugin';
import { KubeConfig } from '@kubernetes/client-node';
import type { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ApiKeyStore } from '../apikeys/store.js';
import { kubeClients } from '../kube/client.js';
import type { KubeBounds } from '../kube/client.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every call bounded by KUBE_REQUEST_TIMEOUT and failing with the error to answer with (kube/errors.ts). */
    kube: { core: CoreV1Api; custom: CustomObjectsApi; namespace: string };
    apikeys: ApiKeyStore;
  }
}

export interface KubePluginOptions extends KubeBounds {
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
    const { core, custom, watch } = kubeClients(kc, opts);
    app.decorate('kube', { core, custom, namespace: opts.namespace });
    const store = new ApiKeyStore(core, watch, opts.namespace, opts.apikeyPrefix, app.log);
    app.decorate('apikeys', store);
    await store.start();
    app.addHook('onClose', async () => {
      await store.stop();
    });
  },
  { name: 'kube' },
);
