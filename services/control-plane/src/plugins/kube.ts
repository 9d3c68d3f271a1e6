import fp from 'fastify-plugin';
import { KubeConfig } from '@kubernetes/client-node';
import type { CoreV1Api, CustomObjectsApi, Watch } from '@kubernetes/client-node';
import { CommandRunner } from '../kube/exec.js';
import { LogStreamer } from '../kube/logs.js';
import { kubeClients } from '../kube/client.js';
import type { KubeBounds } from '../kube/client.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every call bounded by KUBE_REQUEST_TIMEOUT and failing with the error to answer with (kube/errors.ts). */
    kube: {
      core: CoreV1Api;
      custom: CustomObjectsApi;
      /** For informers (kube/informer.ts): every watch bounded by KUBE_WATCH_TIMEOUT. */
      watch: Watch;
      /** Runs a command in a container through the exec API (kube/exec.ts). */
      exec: CommandRunner;
      /** Streams a container's log (kube/logs.ts); the answer, not the stream, bounded by KUBE_REQUEST_TIMEOUT. */
      logs: LogStreamer;
      /** The control plane's own namespace: API keys and profiles live here. */
      namespace: string;
    };
  }
}

export interface KubePluginOptions extends KubeBounds {
  /** Unset: the in-cluster service account. */
  kubeconfig: string | undefined;
  namespace: string;
}

/** The one place that builds the KubeConfig; the rest of the service sees typed API clients. */
export default fp<KubePluginOptions>(
  async (app, opts) => {
    const kc = new KubeConfig();
    if (opts.kubeconfig !== undefined) kc.loadFromFile(opts.kubeconfig);
    else kc.loadFromCluster();
    const { core, custom, watch } = kubeClients(kc, opts);
    app.decorate('kube', {
      core,
      custom,
      watch,
      exec: new CommandRunner(kc, opts.requestTimeoutMs),
      logs: new LogStreamer(kc, opts.requestTimeoutMs),
      namespace: opts.namespace,
    });
  },
  { name: 'kube' },
);
