import fp from 'fastify-plugin';
import { ProfileStore } from '../profiles/store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Profiles from the ConfigMaps labelled `gsp.dev/profile` in the control plane's namespace. */
    profiles: ProfileStore;
  }
}

/** Decorates `app.profiles`, an informer-fed index of the profiles; `app.profiles.ready` once first listed. */
export default fp(
  async (app) => {
    const store = new ProfileStore(app.kube.core, app.kube.watch, app.kube.namespace, app.log);
    app.decorate('profiles', store);
    await store.start();
    app.addHook('onClose', async () => {
      await store.stop();
    });
  },
  { name: 'profiles', dependencies: ['kube'] },
);
