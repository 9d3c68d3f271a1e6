/**
 * Decoding of `application/vnd.kubernetes.protobuf` request bodies for the built-in kinds
 * kubectl creates with its typed client (`kubectl create namespace|secret|configmap`) and for
 * DeleteOptions (helm uninstall).
 * kubectl sends these as protobuf and does not fall back to JSON, so kube-lite reads them;
 * responses are always JSON, which kubectl accepts.
 */
import { badRequest, StatusError } from './status.js';

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

/** A field decoder: how one protobuf field maps to a JSON value. */
type Kind =
  | 'string'
  | 'bytes'
  | 'int'
  | 'bool'
  | 'time'
  | { repeated: Kind }
  | { map: 'string' | 'bytes' }
  | { message: Schema };
type Schema = Record<number, [string, Kind]>;

const OWNER_REFERENCE: Schema = { 1: ['kind', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'], 5: ['apiVersion', 'string'], 6: ['controller', 'bool'], 7: ['blockOwnerDeletion', 'bool'] };
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
};

function decodeScalar(kind: 'string' | 'bytes' | 'int' | 'bool' | 'time', field: Field): unknown {
  switch (kind) {
    case 'string':
      return (field.value as Buffer).toString('utf8');
    case 'bytes':
      return (field.value as Buffer).toString('base64');
    case 'int':
      return Number(field.value as bigint);
    case 'bool':
      return (field.value as bigint) !== 0n;
    case 'time': {
      let seconds = 0;
      for (const f of fields(field.value as Buffer)) if (f.number === 1) seconds = Number(f.value as bigint);
      return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
  }
}

function decodeMessage(buf: Buffer, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields(buf)) {
    const entry = schema[field.number];
    if (!entry) continue;
    const [name, kind] = entry;
    if (typeof kind === 'string') {
      // Kubernetes' protobuf always writes optional scalars; absent JSON fields arrive as zero values.
      const value = decodeScalar(kind, field);
      if (value !== '' && value !== 0 && value !== false && value !== EPOCH) out[name] = value;
    }
    else if ('repeated' in kind) {
      const list = (out[name] as unknown[] | undefined) ?? [];
      const inner = kind.repeated;
      list.push(typeof inner === 'string' ? decodeScalar(inner as 'string', field) : decodeMessage(field.value as Buffer, (inner as { message: Schema }).message));
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
      out[name] = decodeMessage(field.value as Buffer, kind.message);
    }
  }
  return out;
}

/** Decodes a protobuf-encoded object, or throws 415 for kinds kube-lite cannot read this way. */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw badRequest('protobuf body does not start with the k8s magic number');
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
    throw new StatusError(415, 'UnsupportedMediaType', `kube-lite cannot decode ${apiVersion}/${kind} from protobuf; send application/json`);
  }
  return { apiVersion, kind, ...decodeMessage(raw, schema) };
}
