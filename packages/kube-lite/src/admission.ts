/**
 * Per-kind defaulting and validation that the real API server (or, for Agones, its mutating
 * webhook) applies on create and update.
 */
import { randomInt } from 'node:crypto';
import type { KubeObject, ResourceType } from './registry.js';
import { badRequest } from './status.js';

export interface FieldProblem {
  field: string;
  value: unknown;
  detail: string;
  reason?: string;
}

export type Admit = (obj: KubeObject, old: KubeObject | undefined) => FieldProblem[];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const admitSecret: Admit = (obj) => {
  const problems: FieldProblem[] = [];
  const data = (obj.data ?? {}) as Record<string, unknown>;
  if (obj.data !== undefined && (obj.data === null || typeof obj.data !== 'object')) {
    problems.push({ field: 'data', value: obj.data, detail: 'must be a map of base64 strings' });
  }
  for (const value of Object.values(data)) {
    if (typeof value !== 'string' || value.length % 4 !== 0 || !BASE64.test(value)) {
      // The real server fails while decoding the JSON into bytes, before any validation.
      throw badRequest('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0');
    }
  }
  // stringData is write-only: it is folded into data and never stored.
  const stringData = obj.stringData as Record<string, unknown> | undefined;
  if (stringData && typeof stringData === 'object') {
    for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  }
  delete obj.stringData;
  if (Object.keys(data).length > 0 || obj.data !== undefined) obj.data = data;
  if (!obj.type) obj.type = 'Opaque';
  return problems;
};

const admitNamespace: Admit = (obj, old) => {
  obj.spec = (obj.spec as object | undefined) ?? { finalizers: ['kubernetes'] };
  const status = (obj.status as { phase?: string } | undefined) ?? {};
  if (!old) status.phase = 'Active';
  obj.status = status;
  const labels = (obj.metadata.labels ??= {});
  labels['kubernetes.io/metadata.name'] = obj.metadata.name ?? '';
  return [];
};

let nextClusterIp = 10;
const admitService: Admit = (obj, old) => {
  const spec = ((obj.spec as Record<string, unknown> | undefined) ??= {});
  spec.type ??= 'ClusterIP';
  const oldIp = (old?.spec as { clusterIP?: string } | undefined)?.clusterIP;
  if (oldIp) spec.clusterIP = oldIp;
  if (!spec.clusterIP) {
    spec.clusterIP = `10.96.${Math.floor(nextClusterIp / 250)}.${(nextClusterIp % 250) + 1}`;
    nextClusterIp++;
  }
  if (spec.clusterIP !== 'None') spec.clusterIPs = [spec.clusterIP];
  const ports = (spec.ports as { port?: number; protocol?: string; targetPort?: unknown }[] | undefined) ?? [];
  for (const port of ports) {
    port.protocol ??= 'TCP';
    port.targetPort ??= port.port;
  }
  obj.status ??= { loadBalancer: {} };
  return [];
};

const admitPod: Admit = (obj) => {
  const spec = ((obj.spec as Record<string, unknown> | undefined) ??= {});
  const containers = (spec.containers as { name?: string }[] | undefined) ?? [];
  const problems: FieldProblem[] = [];
  if (containers.length === 0) problems.push({ field: 'spec.containers', value: undefined, detail: '', reason: 'FieldValueRequired' });
  containers.forEach((c, i) => {
    if (!c.name) problems.push({ field: `spec.containers[${i}].name`, value: undefined, detail: '', reason: 'FieldValueRequired' });
  });
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  obj.status ??= { phase: 'Pending', qosClass: 'BestEffort' };
  return problems;
};

const admitPvc: Admit = (obj) => {
  obj.status ??= { phase: 'Pending' };
  return [];
};

/** Agones' mutating webhook: defaults for ports, health and scheduling, state PortAllocation/Creating. */
const admitGameServer: Admit = (obj, old) => {
  const spec = ((obj.spec as Record<string, unknown> | undefined) ??= {});
  const ports = ((spec.ports as Record<string, unknown>[] | undefined) ??= []);
  if (ports.length === 0) ports.push({ name: 'default', portPolicy: 'Dynamic', containerPort: 7654, protocol: 'UDP' });
  const oldPorts = ((old?.spec as { ports?: Record<string, unknown>[] } | undefined)?.ports ?? []);
  for (const port of ports) {
    port.name ??= 'default';
    port.portPolicy ??= 'Dynamic';
    port.protocol ??= 'UDP';
    if (port.portPolicy === 'Dynamic' || port.portPolicy === 'Passthrough') {
      // An allocated host port stays with the server, as in Agones where ports are immutable.
      port.hostPort = oldPorts.find((p) => p.name === port.name)?.hostPort ?? randomInt(7000, 8000);
      if (port.portPolicy === 'Passthrough') port.containerPort = port.hostPort;
    }
  }
  if (old) return [];
  spec.health = { disabled: false, initialDelaySeconds: 5, periodSeconds: 5, failureThreshold: 3, ...((spec.health as object | undefined) ?? {}) };
  spec.scheduling ??= 'Packed';
  spec.sdkServer ??= { logLevel: 'Info', grpcPort: 9357, httpPort: 9358 };
  const meta = obj.metadata;
  meta.finalizers = [...new Set([...(meta.finalizers ?? []), 'agones.dev'])];
  const status = ((obj.status as Record<string, unknown> | undefined) ??= {});
  status.state ??= 'Creating';
  status.ports ??= null;
  status.address ??= '';
  status.nodeName ??= '';
  status.reservedUntil ??= null;
  return [];
};

const admitFleet: Admit = (obj) => {
  const spec = ((obj.spec as Record<string, unknown> | undefined) ??= {});
  spec.replicas ??= 1;
  spec.scheduling ??= 'Packed';
  spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };
  obj.status ??= { replicas: 0, readyReplicas: 0, reservedReplicas: 0, allocatedReplicas: 0 };
  const problems: FieldProblem[] = [];
  if (typeof spec.replicas !== 'number' || spec.replicas < 0 || !Number.isInteger(spec.replicas)) {
    problems.push({ field: 'spec.replicas', value: spec.replicas, detail: 'must be a non-negative integer' });
  }
  return problems;
};

const admitVolumeSnapshot: Admit = (obj) => {
  obj.status ??= { readyToUse: false };
  return [];
};

const ADMIT: Record<string, Admit> = {
  '/secrets': admitSecret,
  '/namespaces': admitNamespace,
  '/services': admitService,
  '/pods': admitPod,
  '/persistentvolumeclaims': admitPvc,
  'agones.dev/gameservers': admitGameServer,
  'agones.dev/fleets': admitFleet,
  'snapshot.storage.k8s.io/volumesnapshots': admitVolumeSnapshot,
};

export function admit(type: ResourceType, obj: KubeObject, old: KubeObject | undefined): FieldProblem[] {
  const fn = ADMIT[`${type.group}/${type.plural}`];
  return fn ? fn(obj, old) : [];
}

/** Kinds whose objects carry metadata.generation (those with a spec). */
export function hasGeneration(type: ResourceType): boolean {
  return !['secrets', 'configmaps', 'namespaces'].includes(type.plural) || type.group !== '';
}
