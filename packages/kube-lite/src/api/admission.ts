/**
 * Per-kind defaulting and validation that the real API server (or, for Agones, its mutating
 * webhook) applies on create and update.
 */
import { randomInt } from 'node:crypto';
import type { KubeObject, ResourceType } from './registry.js';
import { matchesLabels, selectorFromObject, SelectorError, type LabelSelectorObject } from './selectors.js';
import { badRequest } from './status.js';
import { dns1123SubdomainErrors, pathSegmentNameErrors } from './validation.js';

export interface FieldProblem {
  field: string;
  value: unknown;
  detail: string;
  reason?: string;
}

export type Admit = (obj: KubeObject, old: KubeObject | undefined) => FieldProblem[];

/** A field that must be given and is not (`field.Required`). */
const required = (field: string, detail = ''): FieldProblem => ({
  field,
  value: undefined,
  detail,
  reason: 'FieldValueRequired',
});

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
    for (const [key, value] of Object.entries(stringData))
      data[key] = Buffer.from(String(value), 'utf8').toString('base64');
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
  const problems = podSpecProblems(spec, 'spec');
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  defaultContainers(spec);
  obj.status ??= { phase: 'Pending', qosClass: 'BestEffort' };
  return problems;
};

/** A claim's `spec.dataSource` or `spec.dataSourceRef`: what its volume is made from. */
interface DataSource {
  apiGroup?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

/** validateDataSource / validateDataSourceRef: a name and a kind, and a group for anything but a claim. */
function dataSourceProblems(source: DataSource, at: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!source.name) problems.push(required(`${at}.name`));
  if (!source.kind) problems.push(required(`${at}.kind`));
  const apiGroup = source.apiGroup ?? '';
  if (apiGroup === '' && source.kind !== 'PersistentVolumeClaim') {
    problems.push({
      field: at,
      value: source.kind ?? '',
      detail: "must be 'PersistentVolumeClaim' when referencing the default apiGroup",
    });
  }
  for (const detail of apiGroup === '' ? [] : dns1123SubdomainErrors(apiGroup))
    problems.push({ field: `${at}.apiGroup`, value: apiGroup, detail });
  return problems;
}

const sameSource = (a: DataSource, b: DataSource): boolean =>
  (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.kind === b.kind && a.name === b.name;

/**
 * NormalizeDataSources (AnyVolumeDataSource, on by default since 1.24 and GA in 1.33): a
 * `dataSource` is mirrored into `dataSourceRef` and a `dataSourceRef` without a namespace into
 * `dataSource`; then the data-source part of ValidatePersistentVolumeClaimSpec.
 */
const admitPvc: Admit = (obj) => {
  obj.status ??= { phase: 'Pending' };
  const spec = dict(obj.spec);
  const source = isDict(spec.dataSource) ? (spec.dataSource as DataSource) : undefined;
  const ref = isDict(spec.dataSourceRef) ? (spec.dataSourceRef as DataSource) : undefined;
  const copy = ({ apiGroup, kind, name }: DataSource): DataSource => ({
    ...(apiGroup === undefined ? {} : { apiGroup }),
    kind,
    name,
  });
  if (source && !ref) spec.dataSourceRef = copy(source);
  else if (ref && !source && !ref.namespace) spec.dataSource = copy(ref);
  const problems: FieldProblem[] = [];
  if (source) problems.push(...dataSourceProblems(source, 'spec.dataSource'));
  if (ref) problems.push(...dataSourceProblems(ref, 'spec.dataSourceRef'));
  if (ref?.namespace) {
    if (source)
      problems.push({
        field: 'spec',
        value: 'spec.dataSource',
        detail: 'may not be specified when dataSourceRef.namespace is specified',
      });
  } else if (source && ref && !sameSource(source, ref)) {
    problems.push({ field: 'spec', value: 'spec.dataSource', detail: 'must match dataSourceRef' });
  }
  return problems;
};

/**
 * Agones' mutating webhook: defaults for ports, health and scheduling, state PortAllocation/Creating, player
 * status.
 */
const admitGameServer: Admit = (obj, old) => {
  // Agones' validating webhook: the name becomes a label value on the pod, so it is a 63-character label.
  const name = obj.metadata.name ?? '';
  if (!old && name.length > 63) {
    return [
      {
        field: 'Name',
        value: name,
        detail: `Length of GameServer '${name}' name should be no more than 63 characters.`,
      },
    ];
  }
  const spec = ((obj.spec as Record<string, unknown> | undefined) ??= {});
  const ports = ((spec.ports as Record<string, unknown>[] | undefined) ??= []);
  if (ports.length === 0) ports.push({ name: 'default', portPolicy: 'Dynamic', containerPort: 7654, protocol: 'UDP' });
  const oldPorts = (old?.spec as { ports?: Record<string, unknown>[] } | undefined)?.ports ?? [];
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
  spec.health = {
    disabled: false,
    initialDelaySeconds: 5,
    periodSeconds: 5,
    failureThreshold: 3,
    ...((spec.health as object | undefined) ?? {}),
  };
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
  // Player tracking (an alpha feature gate in Agones) is on here for servers that ask for it.
  const players = spec.players as { initialCapacity?: number } | undefined;
  if (players) status.players ??= { count: 0, capacity: players.initialCapacity ?? 0, ids: [] };
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

const RBAC_GROUP = 'rbac.authorization.k8s.io';
type Dict = Record<string, unknown>;
const isDict = (value: unknown): value is Dict => value !== null && typeof value === 'object' && !Array.isArray(value);
const dict = (value: unknown): Dict => (isDict(value) ? value : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * The part of ValidatePodSpec kube-lite applies, in its order: volume names are given and
 * unique; containers are given, each named, with unique mount paths, and named unlike the other
 * containers; init containers are named unlike every container before them.
 */
function podSpecProblems(podSpec: Dict, at: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const missing = (field: string): void => void problems.push(required(field));
  const duplicate = (field: string, value: unknown): void =>
    void problems.push({ field, value, detail: '', reason: 'FieldValueDuplicate' });

  const volumeNames = new Set<unknown>();
  list(podSpec.volumes).forEach((raw, i) => {
    const name = dict(raw).name;
    // A volume with an error is not remembered, so a nameless one never counts as a duplicate.
    if (name === undefined || name === '') missing(`${at}.volumes[${i}].name`);
    else if (volumeNames.has(name)) duplicate(`${at}.volumes[${i}].name`, name);
    else volumeNames.add(name);
  });

  const commonProblems = (container: Dict, path: string): void => {
    if (container.name === undefined || container.name === '') missing(`${path}.name`);
    const mountPaths = new Set<unknown>();
    list(container.volumeMounts).forEach((raw, i) => {
      const mountPath = dict(raw).mountPath ?? '';
      if (mountPaths.has(mountPath))
        problems.push({ field: `${path}.volumeMounts[${i}].mountPath`, value: mountPath, detail: 'must be unique' });
      mountPaths.add(mountPath);
    });
  };

  const containers = list(podSpec.containers);
  const names = new Set<unknown>();
  if (containers.length === 0) missing(`${at}.containers`);
  // A pod of the API's default grace period (the defaults come first on a real server).
  const gracePeriod =
    typeof podSpec.terminationGracePeriodSeconds === 'number' ? podSpec.terminationGracePeriodSeconds : 30;
  containers.forEach((raw, i) => {
    const container = dict(raw);
    commonProblems(container, `${at}.containers[${i}]`);
    const name = container.name ?? '';
    if (names.has(name)) duplicate(`${at}.containers[${i}].name`, name);
    else names.add(name);
    if (isDict(container.lifecycle))
      problems.push(...lifecycleProblems(container.lifecycle, gracePeriod, `${at}.containers[${i}].lifecycle`));
  });
  list(podSpec.initContainers).forEach((raw, i) => {
    const container = dict(raw);
    commonProblems(container, `${at}.initContainers[${i}]`);
    const name = container.name ?? '';
    if (names.has(name)) duplicate(`${at}.initContainers[${i}].name`, name);
    else if (name !== '') names.add(name);
  });
  problems.push(...spreadProblems(list(podSpec.topologySpreadConstraints), `${at}.topologySpreadConstraints`));
  return problems;
}

const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

/**
 * validateLifecycle: each hook has exactly one handler, and a `sleep` (PodLifecycleSleepAction,
 * on by default since 1.30 and GA in 1.34, zero allowed since 1.33) lasts 0 s to the pod's grace period.
 */
function lifecycleProblems(lifecycle: Dict, gracePeriod: number, at: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const hook of ['postStart', 'preStop']) {
    if (!isDict(lifecycle[hook])) continue;
    const handler = lifecycle[hook];
    const given = HANDLERS.filter((key) => isDict(handler[key]));
    if (given.length === 0) problems.push(required(`${at}.${hook}`, 'must specify a handler type'));
    for (const key of given.slice(1))
      problems.push({
        field: `${at}.${hook}.${key}`,
        value: undefined,
        detail: 'may not specify more than 1 handler type',
        reason: 'FieldValueForbidden',
      });
    const seconds = dict(handler.sleep).seconds;
    if (given.includes('sleep') && (typeof seconds !== 'number' || seconds < 0 || seconds > gracePeriod))
      problems.push({
        field: `${at}.${hook}.sleep.seconds`,
        value: seconds,
        detail: `must be non-negative and less than terminationGracePeriodSeconds (${gracePeriod})`,
      });
  }
  return problems;
}

/** validateTopologySpreadConstraints: a positive skew, a key, a known action, each {key, action} once. */
function spreadProblems(constraints: unknown[], at: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  constraints.forEach((raw, i) => {
    const constraint = dict(raw);
    const path = `${at}[${i}]`;
    const maxSkew = constraint.maxSkew;
    if (typeof maxSkew !== 'number' || maxSkew <= 0)
      problems.push({ field: `${path}.maxSkew`, value: maxSkew ?? 0, detail: 'must be greater than zero' });
    if (typeof constraint.topologyKey !== 'string' || constraint.topologyKey === '')
      problems.push(required(`${path}.topologyKey`, 'can not be empty'));
    if (constraint.whenUnsatisfiable !== 'DoNotSchedule' && constraint.whenUnsatisfiable !== 'ScheduleAnyway')
      problems.push({
        field: `${path}.whenUnsatisfiable`,
        value: constraint.whenUnsatisfiable ?? '',
        detail: '"DoNotSchedule", "ScheduleAnyway"',
        reason: 'FieldValueNotSupported',
      });
    const repeated = constraints.slice(i + 1).some((other) => {
      const { topologyKey, whenUnsatisfiable } = dict(other);
      return topologyKey === constraint.topologyKey && whenUnsatisfiable === constraint.whenUnsatisfiable;
    });
    if (repeated)
      problems.push({
        field: `${path}.{topologyKey, whenUnsatisfiable}`,
        value: `{${String(constraint.topologyKey)}, ${String(constraint.whenUnsatisfiable)}}`,
        detail: '',
        reason: 'FieldValueDuplicate',
      });
  });
  return problems;
}

/** SetDefaults_ObjectFieldSelector: a `fieldRef` without an `apiVersion` reads the v1 pod. */
function defaultContainers(podSpec: Dict): void {
  for (const kind of ['initContainers', 'containers']) {
    for (const container of list(podSpec[kind])) {
      for (const variable of list(dict(container).env)) {
        const fieldRef = dict(dict(variable).valueFrom).fieldRef;
        if (isDict(fieldRef)) fieldRef.apiVersion ??= 'v1';
      }
    }
  }
}

/**
 * `pod.GetWarningsForPodTemplate`'s warning about env lists that repeat a name: a later entry
 * hides the earlier one unless it builds on it (`$(NAME)` inside a longer value), and apply
 * would keep only one of them.
 */
function envWarnings(podSpec: Dict, at: string): string[] {
  const warnings: string[] = [];
  for (const kind of ['initContainers', 'containers', 'ephemeralContainers']) {
    list(podSpec[kind]).forEach((raw, c) => {
      const env = list(dict(raw).env);
      if (env.length < 2) return;
      const seen = new Set<string>();
      env.forEach((rawVar, i) => {
        const variable = dict(rawVar);
        const name = typeof variable.name === 'string' ? variable.name : '';
        if (!seen.has(name)) {
          seen.add(name);
          return;
        }
        const ref = `$(${name})`;
        const value = typeof variable.value === 'string' ? variable.value : '';
        if (
          (variable.valueFrom !== undefined && variable.valueFrom !== null) ||
          value === ref ||
          !value.includes(ref)
        ) {
          warnings.push(
            `${at}.${kind}[${c}].env[${i}]: hides previous definition of ${JSON.stringify(name)}, ` +
              'which may be dropped when using apply',
          );
        }
      });
    });
  }
  return warnings;
}

/**
 * A Deployment as the apps/v1 defaulting and validation leave it. It is only stored: no
 * ReplicaSets or pods are made, and its status stays as clients write it (empty at first).
 */
const admitDeployment: Admit = (obj, old) => {
  const spec = ((obj.spec as Dict | undefined) ??= {});
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  const strategy = ((spec.strategy as Dict | undefined) ??= {});
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = ((strategy.rollingUpdate as Dict | undefined) ??= {});
    rolling.maxUnavailable ??= '25%';
    rolling.maxSurge ??= '25%';
  }
  const template = dict(spec.template);
  const podSpec = dict(template.spec);
  if (isDict(template.spec)) {
    podSpec.restartPolicy ??= 'Always';
    podSpec.terminationGracePeriodSeconds ??= 30;
    podSpec.dnsPolicy ??= 'ClusterFirst';
    podSpec.schedulerName ??= 'default-scheduler';
    defaultContainers(podSpec);
  }
  // The status belongs to the deployment controller; a new object starts without one.
  if (!old) obj.status = {};

  const problems: FieldProblem[] = [];
  if (typeof spec.replicas !== 'number' || !Number.isInteger(spec.replicas) || spec.replicas < 0) {
    problems.push({ field: 'spec.replicas', value: spec.replicas, detail: 'must be greater than or equal to 0' });
  }
  const selector = (isDict(spec.selector) ? spec.selector : undefined) as LabelSelectorObject | undefined;
  if (!selector) {
    problems.push(required('spec.selector'));
  } else if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
    problems.push({ field: 'spec.selector', value: selector, detail: 'empty selector is invalid for deployment' });
  } else {
    const labels = (dict(template.metadata).labels ?? {}) as Record<string, string>;
    try {
      if (!matchesLabels(selectorFromObject(selector), labels)) {
        problems.push({
          field: 'spec.template.metadata.labels',
          value: labels,
          detail: '`selector` does not match template `labels`',
        });
      }
    } catch (err) {
      if (!(err instanceof SelectorError)) throw err;
      problems.push({ field: 'spec.selector', value: selector, detail: err.message });
    }
  }
  problems.push(...podSpecProblems(podSpec, 'spec.template.spec'));
  // ValidateDeploymentUpdate checks the selector after the whole spec.
  const oldSelector = (old?.spec as Dict | undefined)?.selector;
  if (old && JSON.stringify(oldSelector) !== JSON.stringify(spec.selector)) {
    problems.push({ field: 'spec.selector', value: spec.selector, detail: 'field is immutable' });
  }
  return problems;
};

const PERCENT = /^[0-9]+%$/;

function intOrPercentProblems(field: string, value: unknown): FieldProblem[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'number')
    return value < 0 ? [{ field, value, detail: 'must be greater than or equal to 0' }] : [];
  if (typeof value !== 'string' || !PERCENT.test(value)) {
    return [
      {
        field,
        value,
        detail:
          "a valid percent string must be a numeric string followed by an ending '%' " +
          "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      },
    ];
  }
  return Number(value.slice(0, -1)) > 100 ? [{ field, value, detail: 'must not be greater than 100%' }] : [];
}

/**
 * policy/v1: no defaults; a new budget's status is all zeros until the disruption controller (absent here) computes
 * it.
 */
const admitPodDisruptionBudget: Admit = (obj, old) => {
  const spec = ((obj.spec as Dict | undefined) ??= {});
  if (!old) obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  const problems: FieldProblem[] = [];
  if (
    spec.minAvailable !== undefined &&
    spec.minAvailable !== null &&
    spec.maxUnavailable !== undefined &&
    spec.maxUnavailable !== null
  ) {
    problems.push({ field: 'spec', value: spec, detail: 'minAvailable and maxUnavailable cannot be both set' });
  }
  problems.push(
    ...intOrPercentProblems('spec.minAvailable', spec.minAvailable),
    ...intOrPercentProblems('spec.maxUnavailable', spec.maxUnavailable),
  );
  return problems;
};

/** RBAC's ValidatePolicyRule: a rule names verbs, and API groups and resources or (cluster-wide only) URLs. */
function ruleProblems(rules: unknown, namespaced: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const list = Array.isArray(rules) ? rules : [];
  list.forEach((raw: unknown, i) => {
    const rule = dict(raw);
    const at = `rules[${i}]`;
    const size = (key: string): number => (Array.isArray(rule[key]) ? (rule[key] as unknown[]).length : 0);
    if (size('verbs') === 0) problems.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
    if (size('nonResourceURLs') > 0) {
      if (namespaced)
        problems.push({
          field: `${at}.nonResourceURLs`,
          value: rule.nonResourceURLs,
          detail: 'namespaced rules cannot apply to non-resource URLs',
        });
      if (size('apiGroups') > 0 || size('resources') > 0 || size('resourceNames') > 0) {
        problems.push({
          field: `${at}.nonResourceURLs`,
          value: rule.nonResourceURLs,
          detail: 'rules cannot apply to both regular resources and non-resource URLs',
        });
      }
      return;
    }
    if (size('apiGroups') === 0) {
      problems.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
    }
    if (size('resources') === 0) {
      problems.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
    }
  });
  return problems;
}

const admitRole: Admit = (obj) => ruleProblems(obj.rules, true);
const admitClusterRole: Admit = (obj) => ruleProblems(obj.rules, false);

/**
 * RoleBinding and ClusterRoleBinding: rbac/v1 defaulting of API groups, then ValidateRoleBinding; roleRef is
 * immutable.
 */
function admitBinding(namespaced: boolean): Admit {
  return (obj, old) => {
    const roleRef = dict(obj.roleRef);
    if (isDict(obj.roleRef) && !roleRef.apiGroup) roleRef.apiGroup = RBAC_GROUP;
    const subjects = Array.isArray(obj.subjects) ? (obj.subjects as unknown[]) : [];
    for (const raw of subjects) {
      const subject = dict(raw);
      if (subject.apiGroup === undefined && (subject.kind === 'User' || subject.kind === 'Group'))
        subject.apiGroup = RBAC_GROUP;
    }
    const problems: FieldProblem[] = [];
    if (roleRef.apiGroup !== RBAC_GROUP)
      problems.push({
        field: 'roleRef.apiGroup',
        value: roleRef.apiGroup ?? '',
        detail: `"${RBAC_GROUP}"`,
        reason: 'FieldValueNotSupported',
      });
    const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
    if (!kinds.includes(roleRef.kind as string)) {
      problems.push({
        field: 'roleRef.kind',
        value: roleRef.kind ?? '',
        detail: kinds.map((k) => `"${k}"`).join(', '),
        reason: 'FieldValueNotSupported',
      });
    }
    if (typeof roleRef.name !== 'string' || roleRef.name === '') {
      problems.push(required('roleRef.name'));
    } else {
      for (const detail of pathSegmentNameErrors(roleRef.name))
        problems.push({ field: 'roleRef.name', value: roleRef.name, detail });
    }
    subjects.forEach((raw, i) => {
      const subject = dict(raw);
      const at = `subjects[${i}]`;
      if (typeof subject.name !== 'string' || subject.name === '') problems.push(required(`${at}.name`));
      if (subject.kind === 'ServiceAccount') {
        if ((subject.apiGroup ?? '') !== '')
          problems.push({
            field: `${at}.apiGroup`,
            value: subject.apiGroup,
            detail: '""',
            reason: 'FieldValueNotSupported',
          });
        if (!namespaced && !subject.namespace) problems.push(required(`${at}.namespace`));
      } else if (subject.kind === 'User' || subject.kind === 'Group') {
        if (subject.apiGroup !== RBAC_GROUP)
          problems.push({
            field: `${at}.apiGroup`,
            value: subject.apiGroup,
            detail: `"${RBAC_GROUP}"`,
            reason: 'FieldValueNotSupported',
          });
      } else {
        problems.push({
          field: `${at}.kind`,
          value: subject.kind ?? '',
          detail: '"ServiceAccount", "User", "Group"',
          reason: 'FieldValueNotSupported',
        });
      }
    });
    if (old && JSON.stringify(old.roleRef) !== JSON.stringify(obj.roleRef)) {
      problems.push({ field: 'roleRef', value: obj.roleRef, detail: 'cannot change roleRef' });
    }
    return problems;
  };
}

const ADMIT: Record<string, Admit> = {
  '/secrets': admitSecret,
  '/namespaces': admitNamespace,
  '/services': admitService,
  '/pods': admitPod,
  '/persistentvolumeclaims': admitPvc,
  'agones.dev/gameservers': admitGameServer,
  'agones.dev/fleets': admitFleet,
  'snapshot.storage.k8s.io/volumesnapshots': admitVolumeSnapshot,
  'apps/deployments': admitDeployment,
  'policy/poddisruptionbudgets': admitPodDisruptionBudget,
  'rbac.authorization.k8s.io/roles': admitRole,
  'rbac.authorization.k8s.io/clusterroles': admitClusterRole,
  'rbac.authorization.k8s.io/rolebindings': admitBinding(true),
  'rbac.authorization.k8s.io/clusterrolebindings': admitBinding(false),
};

export function admit(type: ResourceType, obj: KubeObject, old: KubeObject | undefined): FieldProblem[] {
  const fn = ADMIT[`${type.group}/${type.plural}`];
  return fn ? fn(obj, old) : [];
}

/**
 * The warnings the API server's registry strategies give for a valid write (sent as `Warning`
 * headers; kubectl prints them). Pods are warned about on create only; Deployments on create
 * and on updates that change the spec.
 */
export function warningsFor(type: ResourceType, obj: KubeObject, old: KubeObject | undefined): string[] {
  const key = `${type.group}/${type.plural}`;
  if (key === '/pods') return old ? [] : envWarnings(dict(obj.spec), 'spec');
  if (key === 'apps/deployments') {
    if (old && JSON.stringify(old.spec) === JSON.stringify(obj.spec)) return [];
    return envWarnings(dict(dict(dict(obj.spec).template).spec), 'spec.template.spec');
  }
  return [];
}

/** Kinds whose objects carry metadata.generation (those with a spec). */
export function hasGeneration(type: ResourceType): boolean {
  return type.generation !== false;
}
