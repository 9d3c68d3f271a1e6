import { RESOURCE_TYPES, typeKey } from '../api/registry.js';
import { typeOf, type Controller, type ControllerContext } from './loop.js';

/** Namespace deletion: a terminating namespace loses everything in it, then goes. */
export function namespaceFinalizer({ api, timers, stepMs }: ControllerContext): Controller {
  const namespaces = typeOf('', 'namespaces');

  const finalize = (name: string): void => {
    for (const type of RESOURCE_TYPES) {
      if (!type.namespaced) continue;
      for (const item of api.store.list(typeKey(type), name))
        api.store.remove(typeKey(type), name, item.metadata.name as string);
    }
    api.finalizeDeletion(namespaces, undefined, name);
  };

  return {
    watches: ['/namespaces'],
    onEvent: (event) => {
      const obj = event.object;
      if (event.type === 'MODIFIED' && obj.metadata.deletionTimestamp)
        timers.after(stepMs, () => finalize(obj.metadata.name as string));
    },
    resume: () => {
      for (const ns of api.store.list('/namespaces'))
        if (ns.metadata.deletionTimestamp) finalize(ns.metadata.name as string);
    },
  };
}
