import { readFileSync } from 'node:fs';
import { ConfigError, durationVar, nonEmpty } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';
import { isDnsLabel } from '@gsp/platform-contract';
import type { KubeBounds } from '../kube/client.js';

export const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** `KUBECONFIG`; unset, the in-cluster configuration, which only a pod has. */
export function readKubeconfig(env: Env): string | undefined {
  const path = nonEmpty(env, 'KUBECONFIG');
  if (path === undefined && nonEmpty(env, 'KUBERNETES_SERVICE_HOST') === undefined) {
    throw new ConfigError(
      'KUBECONFIG',
      'is unset and this is not running in a Kubernetes pod (KUBERNETES_SERVICE_HOST is unset): ' +
        'point KUBECONFIG at a cluster, e.g. the kubeconfig that kube-lite prints',
    );
  }
  return path;
}

/** `KUBE_REQUEST_TIMEOUT` and `KUBE_WATCH_TIMEOUT`. */
export function readKubeBounds(env: Env): KubeBounds {
  return {
    requestTimeoutMs: durationVar(env, 'KUBE_REQUEST_TIMEOUT', 10_000, 100),
    // Whole seconds: it is the watch's timeoutSeconds.
    watchTimeoutMs: Math.round(durationVar(env, 'KUBE_WATCH_TIMEOUT', 60_000, 1000) / 1000) * 1000,
  };
}

/** `POD_NAMESPACE`, else the service account's namespace, else `default`. */
export function readNamespace(env: Env, serviceAccountFile: string): string {
  const fromEnv = nonEmpty(env, 'POD_NAMESPACE');
  let namespace = fromEnv;
  if (namespace === undefined) {
    try {
      namespace = readFileSync(serviceAccountFile, 'utf8').trim() || undefined;
    } catch {
      namespace = undefined;
    }
  }
  namespace ??= 'default';
  if (!isDnsLabel(namespace))
    throw new ConfigError('POD_NAMESPACE', `must be a namespace name, got ${JSON.stringify(namespace)}`);
  return namespace;
}
