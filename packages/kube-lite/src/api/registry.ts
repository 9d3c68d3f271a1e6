/**
 * The table of resource types kube-lite serves. Adding a resource is one declaration here:
 * discovery, routing, validation, tables and OpenAPI are all derived from it.
 */

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
};

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * How a name is checked: the Kubernetes validators used for each built-in kind
 * (`path-segment` is RBAC's: anything but `.`, `..` or a name containing `/` or `%`).
 */
export type NameRule = 'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'path-segment';

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/** A column of `kubectl get` output, as in a Table's columnDefinitions. */
export interface Column {
  name: string;
  type: 'string' | 'integer' | 'date' | 'number' | 'boolean';
  format?: string;
  description: string;
  priority?: number;
  cell: (obj: KubeObject, now: Date) => string | number | boolean | null;
}

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  verbs: Verb[];
  categories?: string[];
  nameRule: NameRule;
  /** Subresources served, such as `status`, `log`, `exec`, `attach`, `scale`. */
  subresources: string[];
  /**
   * Custom resources (served from a CRD in a real cluster) refuse strategic merge patch
   * and return the deleted object; built-in ones accept it and return a Status.
   */
  custom: boolean;
  /** Writes to the main resource keep the stored status when a status subresource exists. */
  statusSubresource: boolean;
  /**
   * Objects carry `metadata.generation`, bumped on spec changes. Default true; false for kinds
   * whose registry strategy never sets it (no spec: Secret, ConfigMap, ServiceAccount, RBAC).
   */
  generation?: boolean;
  /** Strategic-merge keys of lists in this kind, by dotted path (`spec.containers`). */
  mergeKeys?: Record<string, string>;
  /**
   * Server-side apply's associative lists (`x-kubernetes-list-type: map` in the API server's
   * OpenAPI) and their key fields (`x-kubernetes-list-map-keys`), by dotted path. An apply
   * configuration that repeats a key in one of them is refused (see `apply.ts`). Lists the API
   * server treats as atomic (such as `imagePullSecrets`) are not named here.
   */
  listMapKeys?: Record<string, readonly string[]>;
  columns: Column[];
}

export function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** `secrets` for core types, `gameservers.agones.dev` for grouped ones, as in error messages. */
export function qualifiedResource(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}

export function typeKey(type: ResourceType): string {
  return `${type.group}/${type.plural}`;
}

const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const nameColumn: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  cell: (o) => o.metadata.name ?? '',
};

const ageColumn: Column = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (o, now) => humanAge(o.metadata.creationTimestamp, now),
};

/** Kubernetes' `duration.HumanDuration` for the Age column. */
export function humanAge(timestamp: string | undefined, now: Date): string {
  if (!timestamp) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(timestamp)) / 1000));
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  return `${Math.floor(hours / 24 / 365)}y`;
}

function path(obj: unknown, ...keys: (string | number)[]): unknown {
  let current = obj;
  for (const key of keys) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;
}

function count(value: unknown): number {
  return value && typeof value === 'object' ? Object.keys(value).length : 0;
}

function col(name: string, type: Column['type'], description: string, cell: Column['cell'], priority?: number): Column {
  return priority === undefined ? { name, type, description, cell } : { name, type, description, cell, priority };
}

const core = (
  plural: string,
  kind: string,
  extra: Partial<ResourceType> & Pick<ResourceType, 'columns'>,
): ResourceType => ({
  group: '',
  version: 'v1',
  plural,
  singular: kind.toLowerCase(),
  kind,
  namespaced: true,
  shortNames: [],
  verbs: ALL_VERBS,
  nameRule: 'dns1123-subdomain',
  subresources: [],
  custom: false,
  statusSubresource: false,
  ...extra,
});

/** A built-in kind of a named group, served at `/apis/{group}/v1`. */
const builtin = (
  group: string,
  plural: string,
  kind: string,
  extra: Partial<ResourceType> & Pick<ResourceType, 'columns'>,
): ResourceType => ({ ...core(plural, kind, extra), group });

/** A kind a CustomResourceDefinition adds (Agones, the CSI snapshotter), served at `/apis/{group}/v1`. */
const customKind = (
  group: string,
  plural: string,
  kind: string,
  extra: Partial<ResourceType> & Pick<ResourceType, 'columns'>,
): ResourceType => builtin(group, plural, kind, { custom: true, ...extra });

/** What the API server's default table convertor prints for kinds without a printer (Roles, ClusterRoles). */
const createdAtColumns: Column[] = [
  nameColumn,
  {
    name: 'Created At',
    type: 'date',
    description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
    cell: (o) => o.metadata.creationTimestamp ?? '',
  },
];

function bindingColumns(what: 'roleBinding' | 'clusterRoleBinding'): Column[] {
  const subjects = (o: KubeObject, kind: string): string =>
    ((o.subjects as { kind?: string; name?: string; namespace?: string }[] | undefined) ?? [])
      .filter((s) => s.kind === kind)
      .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name ?? ''}` : (s.name ?? '')))
      .join(', ');
  return [
    nameColumn,
    col(
      'Role',
      'string',
      'RoleRef can only reference a ClusterRole in the global namespace. ' +
        'If the RoleRef cannot be resolved, the Authorizer must return an error.',
      (o) => `${str(path(o, 'roleRef', 'kind'))}/${str(path(o, 'roleRef', 'name'))}`,
    ),
    ageColumn,
    col('Users', 'string', `Users in the ${what}`, (o) => subjects(o, 'User'), 1),
    col('Groups', 'string', `Groups in the ${what}`, (o) => subjects(o, 'Group'), 1),
    col('ServiceAccounts', 'string', `ServiceAccounts in the ${what}`, (o) => subjects(o, 'ServiceAccount'), 1),
  ];
}

function templateContainers(o: KubeObject): { name?: unknown; image?: unknown }[] {
  const containers = path(o, 'spec', 'template', 'spec', 'containers');
  return Array.isArray(containers) ? (containers as { name?: unknown; image?: unknown }[]) : [];
}

/** `metav1.LabelSelector` as `labels.Selector.String()` prints it: requirements sorted by key. */
export function selectorString(selector: unknown): string {
  if (!selector || typeof selector !== 'object') return '';
  const { matchLabels, matchExpressions } = selector as {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  };
  const requirements: [string, string][] = Object.entries(matchLabels ?? {}).map(([key, value]) => [
    key,
    `${key}=${value}`,
  ]);
  for (const e of matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    const text = {
      In: `${e.key} in (${values})`,
      NotIn: `${e.key} notin (${values})`,
      Exists: e.key,
      DoesNotExist: `!${e.key}`,
    }[e.operator];
    if (text === undefined) return '<invalid>';
    requirements.push([e.key, text]);
  }
  return requirements
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, text]) => text)
    .join(',');
}

/** The associative lists of a core/v1 PodSpec at `at`, as its OpenAPI schema declares them. */
function podSpecListMapKeys(at: string): Record<string, readonly string[]> {
  const keys: Record<string, readonly string[]> = {
    [`${at}.volumes`]: ['name'],
    // Its strategic-merge key is topologyKey alone (patchMergeKey), as the first field here.
    [`${at}.topologySpreadConstraints`]: ['topologyKey', 'whenUnsatisfiable'],
  };
  for (const list of ['containers', 'initContainers']) {
    keys[`${at}.${list}`] = ['name'];
    keys[`${at}.${list}.env`] = ['name'];
    keys[`${at}.${list}.ports`] = ['containerPort', 'protocol'];
    keys[`${at}.${list}.volumeMounts`] = ['mountPath'];
  }
  return keys;
}

/**
 * A pod spec's strategic-merge keys at `at`: each associative list merges on its first key
 * field, and `imagePullSecrets` (atomic for apply) merges on `name`.
 */
function podSpecMergeKeys(at: string): Record<string, string> {
  const keys: Record<string, string> = { [`${at}.imagePullSecrets`]: 'name' };
  for (const [path, fields] of Object.entries(podSpecListMapKeys(at))) keys[path] = fields[0] as string;
  return keys;
}

function num(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

export const RESOURCE_TYPES: readonly ResourceType[] = [
  core('namespaces', 'Namespace', {
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    nameRule: 'dns1123-label',
    subresources: ['status', 'finalize'],
    statusSubresource: true,
    generation: false,
    columns: [
      nameColumn,
      col('Status', 'string', 'The status of the namespace', (o) => str(path(o, 'status', 'phase'))),
      ageColumn,
    ],
  }),
  core('secrets', 'Secret', {
    generation: false,
    columns: [
      nameColumn,
      col('Type', 'string', 'The type of the secret', (o) => str(o.type)),
      col('Data', 'string', 'The number of items in the secret', (o) => count(o.data)),
      ageColumn,
    ],
  }),
  core('configmaps', 'ConfigMap', {
    shortNames: ['cm'],
    generation: false,
    columns: [
      nameColumn,
      col('Data', 'string', 'The number of items in the config map', (o) => count(o.data) + count(o.binaryData)),
      ageColumn,
    ],
  }),
  core('pods', 'Pod', {
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status', 'log', 'exec', 'attach'],
    statusSubresource: true,
    mergeKeys: {
      'spec.containers': 'name',
      'spec.initContainers': 'name',
      'spec.containers.env': 'name',
      'spec.containers.ports': 'containerPort',
      'spec.containers.volumeMounts': 'mountPath',
      'spec.volumes': 'name',
      'spec.imagePullSecrets': 'name',
    },
    listMapKeys: podSpecListMapKeys('spec'),
    columns: [
      nameColumn,
      col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.', (o) => {
        const statuses = (path(o, 'status', 'containerStatuses') as { ready?: boolean }[] | undefined) ?? [];
        const containers = (path(o, 'spec', 'containers') as unknown[] | undefined) ?? [];
        return `${statuses.filter((s) => s.ready).length}/${containers.length}`;
      }),
      col('Status', 'string', 'The aggregate status of the containers in this pod.', (o) =>
        o.metadata.deletionTimestamp ? 'Terminating' : str(path(o, 'status', 'phase'), 'Pending'),
      ),
      col('Restarts', 'string', 'The number of times the containers in this pod have been restarted.', () => '0'),
      ageColumn,
      col('IP', 'string', 'The IP address assigned to the pod', (o) => str(path(o, 'status', 'podIP'), '<none>'), 1),
      col(
        'Node',
        'string',
        'The name of the node this pod is assigned to',
        (o) => str(path(o, 'spec', 'nodeName'), '<none>'),
        1,
      ),
    ],
  }),
  core('persistentvolumeclaims', 'PersistentVolumeClaim', {
    shortNames: ['pvc'],
    subresources: ['status'],
    statusSubresource: true,
    columns: [
      nameColumn,
      col('Status', 'string', 'The phase of the claim', (o) => str(path(o, 'status', 'phase'), 'Pending')),
      col('Volume', 'string', 'The volume bound to the claim', (o) => str(path(o, 'spec', 'volumeName'))),
      col('Capacity', 'string', 'The capacity of the claim', (o) => str(path(o, 'status', 'capacity', 'storage'))),
      col('Access Modes', 'string', 'The access modes of the claim', (o) =>
        ((path(o, 'status', 'accessModes') as string[] | undefined) ?? []).map(shortAccessMode).join(','),
      ),
      col('StorageClass', 'string', 'The storage class of the claim', (o) =>
        str(path(o, 'spec', 'storageClassName'), '<unset>'),
      ),
      ageColumn,
    ],
  }),
  core('services', 'Service', {
    shortNames: ['svc'],
    categories: ['all'],
    nameRule: 'dns1035-label',
    subresources: ['status'],
    statusSubresource: true,
    mergeKeys: { 'spec.ports': 'port' },
    listMapKeys: { 'spec.ports': ['port', 'protocol'] },
    columns: [
      nameColumn,
      col('Type', 'string', 'The type of the service', (o) => str(path(o, 'spec', 'type'), 'ClusterIP')),
      col('Cluster-IP', 'string', 'The cluster IP of the service', (o) => str(path(o, 'spec', 'clusterIP'), '<none>')),
      col('External-IP', 'string', 'The external IP of the service', () => '<none>'),
      col('Port(s)', 'string', 'The ports of the service', (o) => {
        const ports = (path(o, 'spec', 'ports') as { port?: number; protocol?: string }[] | undefined) ?? [];
        return ports.length ? ports.map((p) => `${p.port ?? ''}/${p.protocol ?? 'TCP'}`).join(',') : '<none>';
      }),
      ageColumn,
    ],
  }),
  core('serviceaccounts', 'ServiceAccount', {
    shortNames: ['sa'],
    generation: false,
    mergeKeys: { secrets: 'name' },
    columns: [
      nameColumn,
      col(
        'Secrets',
        'string',
        'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount ' +
          'are allowed to use.',
        (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0),
      ),
      ageColumn,
    ],
  }),
  // Built-in kinds that are only stored: no controller acts on them (no ReplicaSets or pods
  // for a Deployment, no RBAC enforcement, no eviction checks for a PodDisruptionBudget).
  builtin('apps', 'deployments', 'Deployment', {
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    statusSubresource: true,
    mergeKeys: { ...podSpecMergeKeys('spec.template.spec'), 'status.conditions': 'type' },
    listMapKeys: podSpecListMapKeys('spec.template.spec'),
    columns: [
      nameColumn,
      col(
        'Ready',
        'string',
        'Number of the pod with ready state',
        (o) => `${num(path(o, 'status', 'readyReplicas'), 0)}/${num(path(o, 'spec', 'replicas'), 1)}`,
      ),
      col(
        'Up-to-date',
        'string',
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
        (o) => num(path(o, 'status', 'updatedReplicas'), 0),
      ),
      col(
        'Available',
        'string',
        'Total number of available non-terminating pods (ready for at least minReadySeconds) ' +
          'targeted by this deployment.',
        (o) => num(path(o, 'status', 'availableReplicas'), 0),
      ),
      ageColumn,
      col(
        'Containers',
        'string',
        'Names of each container in the template.',
        (o) =>
          templateContainers(o)
            .map((c) => str(c.name))
            .join(','),
        1,
      ),
      col(
        'Images',
        'string',
        'Images referenced by each container in the template.',
        (o) =>
          templateContainers(o)
            .map((c) => str(c.image))
            .join(','),
        1,
      ),
      col(
        'Selector',
        'string',
        'Label selector for pods. Existing ReplicaSets whose pods are selected by this ' +
          'will be the ones affected by this deployment.',
        (o) => selectorString(path(o, 'spec', 'selector')),
        1,
      ),
    ],
  }),
  // networking.k8s.io is served before policy, as kube-apiserver lists its groups.
  builtin('networking.k8s.io', 'ingresses', 'Ingress', {
    shortNames: ['ing'],
    subresources: ['status'],
    statusSubresource: true,
    columns: [
      nameColumn,
      col('Class', 'string', 'The name of the IngressClass resource that should be used for this Ingress', (o) =>
        str(path(o, 'spec', 'ingressClassName'), '<none>'),
      ),
      col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule', (o) =>
        ingressHosts(path(o, 'spec', 'rules')),
      ),
      col('Address', 'string', 'Address is a list containing ingress points for the load-balancer', (o) =>
        loadBalancerAddresses(path(o, 'status', 'loadBalancer', 'ingress')),
      ),
      col('Ports', 'string', 'Ports of TLS configurations that open', (o) =>
        Array.isArray(path(o, 'spec', 'tls')) && (path(o, 'spec', 'tls') as unknown[]).length > 0 ? '80, 443' : '80',
      ),
      ageColumn,
    ],
  }),
  builtin('networking.k8s.io', 'networkpolicies', 'NetworkPolicy', {
    shortNames: ['netpol'],
    columns: [
      nameColumn,
      col(
        'Pod-Selector',
        'string',
        'Label selector that selects the pods this policy applies to',
        (o) => selectorString(path(o, 'spec', 'podSelector')) || '<none>',
      ),
      ageColumn,
    ],
  }),
  builtin('policy', 'poddisruptionbudgets', 'PodDisruptionBudget', {
    shortNames: ['pdb'],
    subresources: ['status'],
    statusSubresource: true,
    mergeKeys: { 'status.conditions': 'type' },
    columns: [
      nameColumn,
      col('Min Available', 'string', 'The minimum number of pods that must be available.', (o) =>
        str(path(o, 'spec', 'minAvailable'), 'N/A'),
      ),
      col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.', (o) =>
        str(path(o, 'spec', 'maxUnavailable'), 'N/A'),
      ),
      col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.', (o) =>
        num(path(o, 'status', 'disruptionsAllowed'), 0),
      ),
      ageColumn,
    ],
  }),
  builtin('rbac.authorization.k8s.io', 'roles', 'Role', {
    nameRule: 'path-segment',
    generation: false,
    columns: createdAtColumns,
  }),
  builtin('rbac.authorization.k8s.io', 'rolebindings', 'RoleBinding', {
    nameRule: 'path-segment',
    generation: false,
    columns: bindingColumns('roleBinding'),
  }),
  builtin('rbac.authorization.k8s.io', 'clusterroles', 'ClusterRole', {
    namespaced: false,
    nameRule: 'path-segment',
    generation: false,
    columns: createdAtColumns,
  }),
  builtin('rbac.authorization.k8s.io', 'clusterrolebindings', 'ClusterRoleBinding', {
    namespaced: false,
    nameRule: 'path-segment',
    generation: false,
    columns: bindingColumns('clusterRoleBinding'),
  }),
  customKind('agones.dev', 'gameservers', 'GameServer', {
    shortNames: ['gs'],
    columns: [
      nameColumn,
      col('State', 'string', '', (o) => str(path(o, 'status', 'state'))),
      col('Address', 'string', '', (o) => str(path(o, 'status', 'address'))),
      col('Port', 'string', '', (o) => str(path(o, 'status', 'ports', 0, 'port'))),
      col('Node', 'string', '', (o) => str(path(o, 'status', 'nodeName'))),
      ageColumn,
    ],
  }),
  customKind('agones.dev', 'fleets', 'Fleet', {
    shortNames: ['flt'],
    subresources: ['status', 'scale'],
    statusSubresource: true,
    columns: [
      nameColumn,
      col('Scheduling', 'string', '', (o) => str(path(o, 'spec', 'scheduling'))),
      col('Desired', 'integer', '', (o) => Number(path(o, 'spec', 'replicas') ?? 0)),
      col('Current', 'integer', '', (o) => Number(path(o, 'status', 'replicas') ?? 0)),
      col('Allocated', 'integer', '', (o) => Number(path(o, 'status', 'allocatedReplicas') ?? 0)),
      col('Ready', 'integer', '', (o) => Number(path(o, 'status', 'readyReplicas') ?? 0)),
      ageColumn,
    ],
  }),
  customKind('allocation.agones.dev', 'gameserverallocations', 'GameServerAllocation', {
    shortNames: ['gsa'],
    verbs: ['create'],
    columns: [nameColumn, ageColumn],
  }),
  customKind('snapshot.storage.k8s.io', 'volumesnapshots', 'VolumeSnapshot', {
    shortNames: ['vs'],
    subresources: ['status'],
    statusSubresource: true,
    columns: [
      nameColumn,
      col('ReadyToUse', 'boolean', 'Indicates if the snapshot is ready to be used to restore a volume.', (o) =>
        Boolean(path(o, 'status', 'readyToUse')),
      ),
      col(
        'SourcePVC',
        'string',
        'If a new snapshot needs to be created, this contains the name of the source PVC ' +
          'from which this snapshot was (or will be) created.',
        (o) => str(path(o, 'spec', 'source', 'persistentVolumeClaimName')),
      ),
      col('SnapshotClass', 'string', 'The name of the VolumeSnapshotClass requested by the VolumeSnapshot.', (o) =>
        str(path(o, 'spec', 'volumeSnapshotClassName')),
      ),
      ageColumn,
    ],
  }),
  // The Gateway API's and the Prometheus Operator's CRDs, with their printer columns.
  customKind('gateway.networking.k8s.io', 'httproutes', 'HTTPRoute', {
    categories: ['gateway-api'],
    subresources: ['status'],
    statusSubresource: true,
    columns: [
      nameColumn,
      col('Hostnames', 'string', '', (o) => {
        const hostnames = path(o, 'spec', 'hostnames');
        return Array.isArray(hostnames) ? JSON.stringify(hostnames) : null;
      }),
      ageColumn,
    ],
  }),
  customKind('monitoring.coreos.com', 'servicemonitors', 'ServiceMonitor', {
    shortNames: ['smon'],
    categories: ['prometheus-operator'],
    columns: [nameColumn, ageColumn],
  }),
  customKind('monitoring.coreos.com', 'prometheusrules', 'PrometheusRule', {
    shortNames: ['promrule'],
    categories: ['prometheus-operator'],
    columns: [nameColumn, ageColumn],
  }),
];

/** The Hosts column as kube-apiserver's printer makes it: the first three hosts named, `*` when none is. */
function ingressHosts(rules: unknown): string {
  const all = Array.isArray(rules) ? (rules as { host?: unknown }[]) : [];
  const hosts: string[] = [];
  let more = false;
  for (const rule of all) {
    if (hosts.length === 3) more = true;
    if (!more && str(rule.host) !== '') hosts.push(str(rule.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${all.length - 3} more...` : hosts.join(',');
}

/** A load balancer's addresses, each IP or else host name, sorted, cut to 16 characters as the printer does. */
function loadBalancerAddresses(ingress: unknown): string {
  const points = Array.isArray(ingress) ? (ingress as { ip?: unknown; hostname?: unknown }[]) : [];
  const addresses = [...new Set(points.map((point) => str(point.ip) || str(point.hostname)).filter((a) => a))];
  const text = addresses.sort().join(',');
  return text.length > 16 ? `${text.slice(0, 13)}...` : text;
}

function shortAccessMode(mode: string): string {
  return (
    (
      { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' } as Record<
        string,
        string
      >
    )[mode] ?? mode
  );
}

/** Groups in the order discovery lists them, each with its one served version. */
export function apiGroups(types: readonly ResourceType[] = RESOURCE_TYPES): { group: string; version: string }[] {
  const seen = new Map<string, string>();
  for (const type of types) if (type.group && !seen.has(type.group)) seen.set(type.group, type.version);
  return [...seen].map(([group, version]) => ({ group, version }));
}

export function findType(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.plural === plural);
}
