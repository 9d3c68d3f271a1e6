/**
 * Decoding of `application/vnd.kubernetes.protobuf` request bodies for the built-in kinds
 * kubectl creates with its typed client (`kubectl create namespace|secret|configmap|serviceaccount|
 * role|rolebinding|clusterrole|clusterrolebinding|deployment|poddisruptionbudget|service`) and for
 * DeleteOptions (helm uninstall).
 * kubectl sends these as protobuf and does not fall back to JSON, so kube-lite reads them;
 * responses are always JSON, which kubectl accepts.
 * Some schemas (the pod template's) cover only the fields kubectl's generators set: a field the
 * schema does not know is skipped when it holds a zero value (Go's protobuf writes those) and
 * otherwise answered with 415, so nothing a client sends is silently dropped.
 */
import { badRequest, StatusError } from './api/status.js';

const EPOCH = '1970-01-01T00:00:00Z';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

interface Field {
  number: number;
  wireType: number;
  value: bigint | Buffer;
}

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw badRequest('truncated protobuf varint');
    const byte = buf[pos++] as number;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, afterTag] = readVarint(buf, pos);
    pos = afterTag;
    const number = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (wireType === 0) {
      const [value, next] = readVarint(buf, pos);
      out.push({ number, wireType, value });
      pos = next;
    } else if (wireType === 2) {
      const [len, next] = readVarint(buf, pos);
      const end = next + Number(len);
      if (end > buf.length) throw badRequest('truncated protobuf field');
      out.push({ number, wireType, value: buf.subarray(next, end) });
      pos = end;
    } else if (wireType === 1) {
      out.push({ number, wireType, value: buf.subarray(pos, pos + 8) });
      pos += 8;
    } else if (wireType === 5) {
      out.push({ number, wireType, value: buf.subarray(pos, pos + 4) });
      pos += 4;
    } else {
      throw badRequest(`unsupported protobuf wire type ${wireType}`);
    }
  }
  return out;
}

/**
 * A field decoder: how one protobuf field maps to a JSON value. Plain scalars drop zero values
 * (Go writes every non-pointer field); `int?`, `bool?` and `string?` are pointer fields, whose
 * zero values were set on purpose and are kept. `intOrString` is
 * `k8s.io/apimachinery/pkg/util/intstr`: as a value field (ServicePort.targetPort) Go always writes
 * it and its zero value (the integer 0) means unset; `intOrString?` is a pointer field, kept as sent.
 */
type Scalar = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'int?' | 'bool?' | 'string?';
type Kind =
  Scalar | 'intOrString' | 'intOrString?' | { repeated: Kind } | { map: 'string' | 'bytes' } | { message: Schema };
type Schema = Record<number, [string, Kind]>;

const OWNER_REFERENCE: Schema = {
  1: ['kind', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['controller', 'bool'],
  7: ['blockOwnerDeletion', 'bool'],
};
const OBJECT_META: Schema = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  8: ['creationTimestamp', 'time'],
  9: ['deletionTimestamp', 'time'],
  10: ['deletionGracePeriodSeconds', 'int'],
  11: ['labels', { map: 'string' }],
  12: ['annotations', { map: 'string' }],
  13: ['ownerReferences', { repeated: { message: OWNER_REFERENCE } }],
  14: ['finalizers', { repeated: 'string' }],
};

const LABEL_SELECTOR: Schema = {
  1: ['matchLabels', { map: 'string' }],
  2: [
    'matchExpressions',
    {
      repeated: { message: { 1: ['key', 'string'], 2: ['operator', 'string'], 3: ['values', { repeated: 'string' }] } },
    },
  ],
};

const LOCAL_OBJECT_REFERENCE: Schema = { 1: ['name', 'string'] };

const OBJECT_REFERENCE: Schema = {
  1: ['kind', 'string'],
  2: ['namespace', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['fieldPath', 'string'],
};

const POLICY_RULE: Schema = {
  1: ['verbs', { repeated: 'string' }],
  2: ['apiGroups', { repeated: 'string' }],
  3: ['resources', { repeated: 'string' }],
  4: ['resourceNames', { repeated: 'string' }],
  5: ['nonResourceURLs', { repeated: 'string' }],
};

const SUBJECT: Schema = {
  1: ['kind', 'string'],
  2: ['apiGroup', 'string'],
  3: ['name', 'string'],
  4: ['namespace', 'string'],
};
const ROLE_REF: Schema = { 1: ['apiGroup', 'string'], 2: ['kind', 'string'], 3: ['name', 'string'] };
const BINDING: Schema = {
  1: ['metadata', { message: OBJECT_META }],
  2: ['subjects', { repeated: { message: SUBJECT } }],
  3: ['roleRef', { message: ROLE_REF }],
};

/** The part of core/v1 Container that `kubectl create deployment` fills in, and its simple neighbours. */
const CONTAINER: Schema = {
  1: ['name', 'string'],
  2: ['image', 'string'],
  3: ['command', { repeated: 'string' }],
  4: ['args', { repeated: 'string' }],
  5: ['workingDir', 'string'],
  6: [
    'ports',
    {
      repeated: {
        message: {
          1: ['name', 'string'],
          2: ['hostPort', 'int'],
          3: ['containerPort', 'int'],
          4: ['protocol', 'string'],
          5: ['hostIP', 'string'],
        },
      },
    },
  ],
  7: ['env', { repeated: { message: { 1: ['name', 'string'], 2: ['value', 'string'] } } }],
  9: [
    'volumeMounts',
    {
      repeated: {
        message: {
          1: ['name', 'string'],
          2: ['readOnly', 'bool'],
          3: ['mountPath', 'string'],
          4: ['subPath', 'string'],
        },
      },
    },
  ],
  13: ['terminationMessagePath', 'string'],
  14: ['imagePullPolicy', 'string'],
  16: ['stdin', 'bool'],
  17: ['stdinOnce', 'bool'],
  18: ['tty', 'bool'],
  20: ['terminationMessagePolicy', 'string'],
};

const POD_SPEC: Schema = {
  2: ['containers', { repeated: { message: CONTAINER } }],
  3: ['restartPolicy', 'string'],
  4: ['terminationGracePeriodSeconds', 'int?'],
  6: ['dnsPolicy', 'string'],
  7: ['nodeSelector', { map: 'string' }],
  8: ['serviceAccountName', 'string'],
  10: ['nodeName', 'string'],
  15: ['imagePullSecrets', { repeated: { message: LOCAL_OBJECT_REFERENCE } }],
  19: ['schedulerName', 'string'],
  20: ['initContainers', { repeated: { message: CONTAINER } }],
  21: ['automountServiceAccountToken', 'bool?'],
};

/** `metav1.Condition`. */
const CONDITION: Schema = {
  1: ['type', 'string'],
  2: ['status', 'string'],
  3: ['observedGeneration', 'int'],
  4: ['lastTransitionTime', 'time'],
  5: ['reason', 'string'],
  6: ['message', 'string'],
};

/**
 * core/v1 Service, all of it (up to the v1.35 fields): `kubectl create service clusterip|nodeport|
 * loadbalancer|externalname` fills in ports, selector, clusterIP, type and externalName, and Go
 * writes the other non-pointer fields as zero values.
 */
const SERVICE_PORT: Schema = {
  1: ['name', 'string'],
  2: ['protocol', 'string'],
  3: ['port', 'int'],
  4: ['targetPort', 'intOrString'],
  5: ['nodePort', 'int'],
  6: ['appProtocol', 'string?'],
};

const SERVICE_SPEC: Schema = {
  1: ['ports', { repeated: { message: SERVICE_PORT } }],
  2: ['selector', { map: 'string' }],
  3: ['clusterIP', 'string'],
  4: ['type', 'string'],
  5: ['externalIPs', { repeated: 'string' }],
  7: ['sessionAffinity', 'string'],
  8: ['loadBalancerIP', 'string'],
  9: ['loadBalancerSourceRanges', { repeated: 'string' }],
  10: ['externalName', 'string'],
  11: ['externalTrafficPolicy', 'string'],
  12: ['healthCheckNodePort', 'int'],
  13: ['publishNotReadyAddresses', 'bool'],
  14: ['sessionAffinityConfig', { message: { 1: ['clientIP', { message: { 1: ['timeoutSeconds', 'int?'] } }] } }],
  17: ['ipFamilyPolicy', 'string?'],
  18: ['clusterIPs', { repeated: 'string' }],
  19: ['ipFamilies', { repeated: 'string' }],
  20: ['allocateLoadBalancerNodePorts', 'bool?'],
  21: ['loadBalancerClass', 'string?'],
  22: ['internalTrafficPolicy', 'string?'],
  23: ['trafficDistribution', 'string?'],
};

const LOAD_BALANCER_INGRESS: Schema = {
  1: ['ip', 'string'],
  2: ['hostname', 'string'],
  3: ['ipMode', 'string?'],
  4: ['ports', { repeated: { message: { 1: ['port', 'int'], 2: ['protocol', 'string'], 3: ['error', 'string?'] } } }],
};

const SERVICE_STATUS: Schema = {
  1: ['loadBalancer', { message: { 1: ['ingress', { repeated: { message: LOAD_BALANCER_INGRESS } }] } }],
  2: ['conditions', { repeated: { message: CONDITION } }],
};

const DELETE_OPTIONS: Schema = {
  1: ['gracePeriodSeconds', 'int'],
  2: ['preconditions', { message: { 1: ['uid', 'string'], 2: ['resourceVersion', 'string'] } }],
  3: ['orphanDependents', 'bool'],
  4: ['propagationPolicy', 'string'],
  5: ['dryRun', { repeated: 'string' }],
};

export const PROTOBUF_SCHEMAS: Record<string, Schema> = {
  // Typed clients (helm, kubectl) send DELETE bodies this way too.
  'v1/DeleteOptions': DELETE_OPTIONS,
  'meta.k8s.io/v1/DeleteOptions': DELETE_OPTIONS,
  'v1/Namespace': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['spec', { message: { 1: ['finalizers', { repeated: 'string' }] } }],
    3: ['status', { message: { 1: ['phase', 'string'] } }],
  },
  'v1/Secret': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['data', { map: 'bytes' }],
    3: ['type', 'string'],
    4: ['stringData', { map: 'string' }],
    5: ['immutable', 'bool'],
  },
  'v1/ConfigMap': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['data', { map: 'string' }],
    3: ['binaryData', { map: 'bytes' }],
    4: ['immutable', 'bool'],
  },
  'v1/ServiceAccount': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['secrets', { repeated: { message: OBJECT_REFERENCE } }],
    3: ['imagePullSecrets', { repeated: { message: LOCAL_OBJECT_REFERENCE } }],
    4: ['automountServiceAccountToken', 'bool?'],
  },
  'v1/Service': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['spec', { message: SERVICE_SPEC }],
    3: ['status', { message: SERVICE_STATUS }],
  },
  // kubectl auth whoami: an empty review; the status is the server's to fill (src/authentication.ts).
  'authentication.k8s.io/v1/SelfSubjectReview': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['status', { message: { 1: ['userInfo', { message: { 1: ['username', 'string'] } }] } }],
  },
  'rbac.authorization.k8s.io/v1/Role': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['rules', { repeated: { message: POLICY_RULE } }],
  },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['rules', { repeated: { message: POLICY_RULE } }],
    3: ['aggregationRule', { message: { 1: ['clusterRoleSelectors', { repeated: { message: LABEL_SELECTOR } }] } }],
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  'policy/v1/PodDisruptionBudget': {
    1: ['metadata', { message: OBJECT_META }],
    2: [
      'spec',
      {
        message: {
          1: ['minAvailable', 'intOrString?'],
          2: ['selector', { message: LABEL_SELECTOR }],
          3: ['maxUnavailable', 'intOrString?'],
          4: ['unhealthyPodEvictionPolicy', 'string'],
        },
      },
    ],
  },
  'apps/v1/Deployment': {
    1: ['metadata', { message: OBJECT_META }],
    2: [
      'spec',
      {
        message: {
          1: ['replicas', 'int?'],
          2: ['selector', { message: LABEL_SELECTOR }],
          3: [
            'template',
            { message: { 1: ['metadata', { message: OBJECT_META }], 2: ['spec', { message: POD_SPEC }] } },
          ],
          4: [
            'strategy',
            {
              message: {
                1: ['type', 'string'],
                2: [
                  'rollingUpdate',
                  { message: { 1: ['maxUnavailable', 'intOrString?'], 2: ['maxSurge', 'intOrString?'] } },
                ],
              },
            },
          ],
          5: ['minReadySeconds', 'int'],
          6: ['revisionHistoryLimit', 'int?'],
          7: ['paused', 'bool'],
          9: ['progressDeadlineSeconds', 'int?'],
        },
      },
    ],
  },
};

function decodeScalar(kind: Scalar, field: Field): unknown {
  switch (kind) {
    case 'string':
    case 'string?':
      return (field.value as Buffer).toString('utf8');
    case 'bytes':
      return (field.value as Buffer).toString('base64');
    case 'int':
    case 'int?':
      return Number(BigInt.asIntN(64, field.value as bigint));
    case 'bool':
    case 'bool?':
      return (field.value as bigint) !== 0n;
    case 'time': {
      let seconds = 0;
      for (const f of fields(field.value as Buffer)) if (f.number === 1) seconds = Number(f.value as bigint);
      return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
  }
}

/** True when a field holds its type's zero value: 0, an empty string or list, or a message of zero fields. */
function isZero(field: Field): boolean {
  if (field.wireType === 0) return field.value === 0n;
  const bytes = field.value as Buffer;
  if (field.wireType !== 2) return bytes.every((b) => b === 0);
  if (bytes.length === 0) return true;
  try {
    return fields(bytes).every(isZero);
  } catch {
    return false;
  }
}

/** `intstr.IntOrString`: type 0 carries intVal, type 1 strVal. */
function decodeIntOrString(buf: Buffer): number | string {
  let type = 0n;
  let intVal = 0;
  let strVal = '';
  for (const f of fields(buf)) {
    if (f.number === 1) type = f.value as bigint;
    if (f.number === 2) intVal = Number(BigInt.asIntN(32, f.value as bigint));
    if (f.number === 3) strVal = (f.value as Buffer).toString('utf8');
  }
  return type === 1n ? strVal : intVal;
}

function decodeMessage(buf: Buffer, schema: Schema, where: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields(buf)) {
    const entry = schema[field.number];
    if (!entry) {
      if (isZero(field)) continue;
      throw new StatusError(
        415,
        'UnsupportedMediaType',
        `kube-lite cannot decode field ${field.number} of ${where} from protobuf; send application/json`,
      );
    }
    const [name, kind] = entry;
    const path = `${where}.${name}`;
    if (kind === 'intOrString' || kind === 'intOrString?') {
      const value = decodeIntOrString(field.value as Buffer);
      if (kind === 'intOrString?' || value !== 0) out[name] = value;
    } else if (typeof kind === 'string') {
      const value = decodeScalar(kind, field);
      // Kubernetes' protobuf always writes non-pointer scalars; absent JSON fields arrive as zero values.
      if (kind.endsWith('?') || (value !== '' && value !== 0 && value !== false && value !== EPOCH)) out[name] = value;
    } else if ('repeated' in kind) {
      const list = (out[name] as unknown[] | undefined) ?? [];
      const inner = kind.repeated;
      list.push(
        typeof inner === 'string'
          ? decodeScalar(inner as Scalar, field)
          : decodeMessage(field.value as Buffer, (inner as { message: Schema }).message, path),
      );
      out[name] = list;
    } else if ('map' in kind) {
      const map = (out[name] as Record<string, unknown> | undefined) ?? {};
      let key = '';
      let value: unknown = '';
      for (const f of fields(field.value as Buffer)) {
        if (f.number === 1) key = (f.value as Buffer).toString('utf8');
        if (f.number === 2) value = decodeScalar(kind.map, f);
      }
      map[key] = value;
      out[name] = map;
    } else {
      out[name] = decodeMessage(field.value as Buffer, kind.message, path);
    }
  }
  return out;
}

/** Decodes a protobuf-encoded object, or throws 415 for kinds kube-lite cannot read this way. */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC))
    throw badRequest('protobuf body does not start with the k8s magic number');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = Buffer.alloc(0);
  for (const field of fields(body.subarray(4))) {
    if (field.number === 1) {
      for (const f of fields(field.value as Buffer)) {
        if (f.number === 1) apiVersion = (f.value as Buffer).toString('utf8');
        if (f.number === 2) kind = (f.value as Buffer).toString('utf8');
      }
    } else if (field.number === 2) {
      raw = field.value as Buffer;
    }
  }
  const schema = PROTOBUF_SCHEMAS[`${apiVersion}/${kind}`];
  if (!schema) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      `kube-lite cannot decode ${apiVersion}/${kind} from protobuf; send application/json`,
    );
  }
  return { apiVersion, kind, ...decodeMessage(raw, schema, `${apiVersion}/${kind}`) };
}
