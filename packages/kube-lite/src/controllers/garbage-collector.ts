import { RESOURCE_TYPES, typeKey, type KubeObject } from '../api/registry.js';
import { runSafely, type Controller, type ControllerContext } from './loop.js';

/** The garbage collector: deleting an owner deletes its dependents (those with its uid in ownerReferences). */
export function garbageCollector({ api, timers }: ControllerContext): Controller {
  const collectDependents = (owner: KubeObject): void => {
    const uid = owner.metadata.uid;
    if (!uid) return;
    for (const type of RESOURCE_TYPES) {
      for (const item of api.store.list(typeKey(type), owner.metadata.namespace || undefined)) {
        if (!(item.metadata.ownerReferences ?? []).some((ref) => ref.uid === uid)) continue;
        runSafely(() => {
          api.delete(type, item.metadata.namespace, item.metadata.name as string);
        });
      }
    }
  };

  return {
    onEvent: (event) => {
      if (event.type === 'DELETED') timers.after(0, () => collectDependents(event.object));
    },
  };
}
