/**
 * The built-in controllers kube-lite simulates: namespace deletion, a kubelet that runs pods
 * instantly, a volume provisioner and snapshotter, and the garbage collector that deletes
 * dependents of deleted owners.
 */
import { garbageCollector } from './garbage-collector.js';
import { kubelet } from './kubelet.js';
import { runControllers, type ControllerContext } from './loop.js';
import { namespaceFinalizer } from './namespaces.js';
import { volumeProvisioner, volumeSnapshotter } from './volumes.js';

export function startBuiltinControllers(ctx: ControllerContext): () => void {
  return runControllers(ctx, [
    namespaceFinalizer(ctx),
    kubelet(ctx),
    volumeProvisioner(ctx),
    volumeSnapshotter(ctx),
    garbageCollector(ctx),
  ]);
}
