import fp from 'fastify-plugin';
import { ApiKeyStore } from '../apikeys/store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** API keys from their Secrets in the control plane's namespace (an informer-fed index). */
    apikeys: ApiKeyStore;
  }
}

export interface ApiKeysPluginOptions {
  /** APIKEY_PREFIX: keys read `<prefix>_...`, their Secrets `<prefix>-apikey-<name>`. */
  prefix: string;
}

/** Decorates `app.apikeys`; `app.apikeys.ready` once the key Secrets were first listed. */
export default fp<ApiKeysPluginOptions>(
  async (app, opts) => {
    const store = new ApiKeyStore(app.kube.core, app.kube.watch, app.kube.namespace, opts.prefix, app.log);
    app.decorate('apikeys', store);
    await store.start();
    app.addHook('onClose', async () => {
      await store.stop();
    });
  },
  { name: 'apikeys', dependencies: ['kube'] },
);
