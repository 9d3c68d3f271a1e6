/**
 * What the deployment tests share: helm run against a chart, and a container's environment
 * resolved the way the kubelet would (values, Secret keys, the pod's namespace, files from
 * mounted Secrets and ConfigMaps), so that a service's own config loader can judge it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { findHelm } from '@gsp/kube-lite';
import { loadConfig as apiServerConfig } from '@gsp/api-server';
import { loadConfig as clusterProxyConfig } from '@gsp/cluster-proxy';
import { loadConfig as controlPlaneConfig } from '@gsp/control-plane';
import { loadConfig as tunnelAgentConfig } from '@gsp/tunnel-agent';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

export const root = workspaceDir(import.meta.url);
export const chartDir = (name: string): string => join(root, 'deploy', 'helm', name);

/**
 * The one version of the platform: every service's package.json carries it, each chart's appVersion is it, and so
 * the images' default tag (`<repository>:<servicesVersion>`, e.g. `gsp/api-server:0.1.0`). Throws if two services
 * disagree.
 */
export const servicesVersion: string = (() => {
  const versions = new Map(
    readdirSync(join(root, 'services')).map((name) => [
      name,
      (JSON.parse(readFileSync(join(root, 'services', name, 'package.json'), 'utf8')) as { version: string }).version,
    ]),
  );
  const distinct = new Set(versions.values());
  if (distinct.size !== 1) throw new Error(`the services carry different versions: ${JSON.stringify([...versions])}`);
  return [...distinct][0]!;
})();

/** The image reference a chart renders by default for `repository`: tagged with the services' version. */
export const imageRef = (repository: string): string => `${repository}:${servicesVersion}`;

export type Env = Record<string, string | undefined>;

/** Each service's own config loader, by container (and compose service) name. */
export const loaders: Record<string, (env: Env) => unknown> = {
  'api-server': apiServerConfig,
  'cluster-proxy': clusterProxyConfig,
  'control-plane': (env) => controlPlaneConfig(env, { serviceAccountNamespaceFile: '/nonexistent' }),
  'tunnel-agent': tunnelAgentConfig,
};

export interface Helm {
  run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): void;
}

export function helmIn(kubeconfig?: string): Helm {
  const home = mkdtempSync(join(tmpdir(), 'gsp-helm-'));
  const binary = findHelm({ searchPath: false });
  return {
    run: (args) =>
      new Promise((resolve) => {
        const full = kubeconfig ? ['--kubeconfig', kubeconfig, ...args] : args;
        execFile(
          binary,
          full,
          {
            // Relative chart and values paths are the repository's, as in the README's commands.
            cwd: root,
            env: {
              ...process.env,
              HELM_CACHE_HOME: join(home, 'cache'),
              HELM_CONFIG_HOME: join(home, 'config'),
              HELM_DATA_HOME: join(home, 'data'),
            },
            timeout: 60_000,
          },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      }),
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}

export type Manifest = { kind: string; metadata: { name: string; namespace?: string }; [field: string]: unknown };

/** `--set-json` arguments from a values object, one per top-level key. */
export function valuesArgs(values: Record<string, unknown>): string[] {
  return Object.entries(values).flatMap(([key, value]) => ['--set-json', `${key}=${JSON.stringify(value)}`]);
}

/** Renders a chart; strict YAML (no duplicate keys), as kustomize or a linter would read it. */
export async function template(
  helm: Helm,
  chart: string,
  values: Record<string, unknown>,
  namespace = 'gsp',
  release = 'gsp',
): Promise<Manifest[]> {
  const result = await helm.run([
    'template',
    release,
    chartDir(chart),
    '--namespace',
    namespace,
    ...valuesArgs(values),
  ]);
  if (result.code !== 0) throw new Error(result.stderr.trim());
  const docs = parseAllDocuments(result.stdout);
  const errors = docs.flatMap((doc) => doc.errors.map((e) => e.message));
  if (errors.length > 0) throw new Error(`${chart} renders YAML a strict parser refuses: ${errors.join('; ')}`);
  return docs.map((doc) => doc.toJSON() as Manifest | null).filter((doc): doc is Manifest => doc !== null);
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}
interface Volume {
  name: string;
  secret?: { secretName: string; items?: { key: string; path: string }[] };
  configMap?: { name: string };
  emptyDir?: object;
}
export interface Container {
  name: string;
  image: string;
  env?: EnvVar[];
  volumeMounts?: { name: string; mountPath: string }[];
  securityContext?: Record<string, unknown>;
  readinessProbe?: { httpGet?: { path: string; port: string | number; scheme?: string } };
  livenessProbe?: {
    httpGet?: { path: string; port: string | number; scheme?: string };
    periodSeconds?: number;
    failureThreshold?: number;
  };
  lifecycle?: { preStop?: { sleep?: { seconds: number } } };
  ports?: { name: string; containerPort: number }[];
}
export interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: {
    maxSkew: number;
    topologyKey: string;
    whenUnsatisfiable: string;
    labelSelector?: { matchLabels?: Record<string, string> };
  }[];
}

export const deployments = (docs: Manifest[]): Manifest[] => docs.filter((d) => d.kind === 'Deployment');
export const podSpec = (deployment: Manifest): PodSpec =>
  (deployment as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;

/** The name the kubelet would give the test's pod of `container`: a Deployment's pods are <name>-<hash>-<suffix>. */
export const podName = (container: Container): string => `${container.name}-5d8f7c6b9-x2k8q`;

/**
 * The environment one container would see, with every file it is told about (a path under
 * a mount) written below `dir`: Secret data comes from `secrets`, ConfigMaps from `docs`.
 * The kubelet's own variables (KUBERNETES_SERVICE_HOST) are added, as in a real pod.
 */
export function containerEnv(
  docs: Manifest[],
  spec: PodSpec,
  container: Container,
  secrets: Record<string, Record<string, string>>,
  dir: string,
): Env {
  const secretValue = (name: string, key: string): string => {
    const value = secrets[name]?.[key];
    if (value === undefined)
      throw new Error(`the chart reads key ${key} of Secret ${name}, which the test did not provide`);
    return value;
  };
  const mounts = new Map<string, string>();
  for (const mount of container.volumeMounts ?? []) {
    const volume = spec.volumes?.find((v) => v.name === mount.name);
    if (volume === undefined) throw new Error(`volumeMount ${mount.name} names no volume`);
    const target = join(dir, mount.mountPath);
    mkdirSync(target, { recursive: true });
    mounts.set(mount.mountPath, target);
    if (volume.secret) {
      const data = secrets[volume.secret.secretName];
      if (data === undefined)
        throw new Error(`the chart mounts Secret ${volume.secret.secretName}, which the test did not provide`);
      const items = volume.secret.items ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const item of items) writeFileSync(join(target, item.path), secretValue(volume.secret.secretName, item.key));
    } else if (volume.configMap) {
      const configMap = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === volume.configMap?.name) as
        { data?: Record<string, string> } | undefined;
      if (configMap === undefined)
        throw new Error(`the chart mounts ConfigMap ${volume.configMap.name}, which it does not render`);
      for (const [key, value] of Object.entries(configMap.data ?? {})) writeFileSync(join(target, key), value);
    }
  }
  const env: Env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
  for (const variable of container.env ?? []) {
    if (variable.name in env && !variable.name.startsWith('KUBERNETES_'))
      throw new Error(`${variable.name} is set twice`);
    let value: string;
    if (variable.value !== undefined) value = variable.value;
    else if (variable.valueFrom?.secretKeyRef)
      value = secretValue(variable.valueFrom.secretKeyRef.name, variable.valueFrom.secretKeyRef.key);
    else if (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') value = 'gsp';
    else if (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.name') value = podName(container);
    else throw new Error(`${variable.name} has no value the test understands`);
    for (const [mountPath, target] of mounts) {
      if (value.startsWith(`${mountPath}/`)) value = target + value.slice(mountPath.length);
    }
    env[variable.name] = value;
  }
  return env;
}

/** Runs a config loader over `env`, returning the names it read (a name set but never read is a typo). */
export function load(name: string, env: Env): { read: Set<string> } {
  const loader = loaders[name];
  if (loader === undefined) throw new Error(`no config loader for ${name}`);
  const read = new Set<string>();
  const watched = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return target[key as string];
    },
    has(target, key) {
      if (typeof key === 'string') read.add(key);
      return key in target;
    },
  });
  loader(watched);
  return { read };
}
