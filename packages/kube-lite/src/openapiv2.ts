/**
 * Serving `/openapi/v2` as the API server does (kube-openapi's `handler.OpenAPIService`): JSON,
 * or — what kubectl asks for — the document as gnostic's `openapi.v2.Document` protobuf
 * (`github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto`), which kube-openapi makes from
 * the JSON with `openapi_v2.ParseDocument` + `proto.Marshal`.
 *
 * The encoder covers the part of Swagger 2.0 that kube-lite's document uses. A key it does not
 * know is a programming error and throws, so the protobuf never silently lacks what the JSON says.
 */
import { createHash } from 'node:crypto';
import { stringify as toYaml } from 'yaml';

export const OPENAPI_V2_JSON = 'application/json';
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The media type client-go's discovery client asks for; answered as OPENAPI_V2_PROTOBUF. */
const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

type Json = Record<string, unknown>;

function varint(value: number): Buffer {
  const out: number[] = [];
  let n = value;
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** A length-delimited field: an embedded message (written even when empty), or a string's bytes. */
function messageField(number: number, payload: Buffer): Buffer {
  return Buffer.concat([varint((number << 3) | 2), varint(payload.length), payload]);
}

/** Proto3 scalars: a default value (empty string, false) is not written. */
function stringField(number: number, value: unknown): Buffer {
  if (value === undefined || value === '') return Buffer.alloc(0);
  if (typeof value !== 'string')
    throw new Error(`openapi v2: field ${number} must be a string, not ${JSON.stringify(value)}`);
  return messageField(number, Buffer.from(value, 'utf8'));
}

function stringsField(number: number, values: unknown): Buffer {
  if (values === undefined) return Buffer.alloc(0);
  if (!Array.isArray(values)) throw new Error(`openapi v2: field ${number} must be a list of strings`);
  return Buffer.concat(values.map((v) => messageField(number, Buffer.from(String(v), 'utf8'))));
}

function boolField(number: number, value: unknown): Buffer {
  if (value === undefined || value === false) return Buffer.alloc(0);
  if (value !== true) throw new Error(`openapi v2: field ${number} must be a boolean`);
  return Buffer.concat([varint(number << 3), varint(1)]);
}

/** Throws for a key the encoder does not know; `x-` keys are vendor extensions and always allowed. */
function checkKeys(obj: Json, known: string[], where: string): void {
  for (const key of Object.keys(obj)) {
    if (!key.startsWith('x-') && !known.includes(key))
      throw new Error(`openapi v2: cannot encode "${key}" of ${where}`);
  }
}

/** Vendor extensions as `NamedAny`s whose `Any.yaml` holds the value, as gnostic stores them. */
function extensions(number: number, obj: Json): Buffer {
  return Buffer.concat(
    Object.entries(obj)
      .filter(([key]) => key.startsWith('x-'))
      .map(([key, value]) =>
        messageField(number, Buffer.concat([stringField(1, key), messageField(2, stringField(2, toYaml(value)))])),
      ),
  );
}

/** `repeated NamedX additional_properties = 1`-style maps: (name, value) pairs in document order. */
function named(number: number, map: unknown, encode: (value: Json, where: string) => Buffer, where: string): Buffer {
  return Buffer.concat(
    Object.entries((map ?? {}) as Record<string, Json>).map(([name, value]) =>
      messageField(number, Buffer.concat([stringField(1, name), messageField(2, encode(value, `${where}.${name}`))])),
    ),
  );
}

function schema(s: Json, where: string): Buffer {
  checkKeys(
    s,
    [
      '$ref',
      'format',
      'title',
      'description',
      'required',
      'additionalProperties',
      'type',
      'items',
      'allOf',
      'properties',
      'readOnly',
    ],
    where,
  );
  const parts = [
    stringField(1, s.$ref),
    stringField(2, s.format),
    stringField(3, s.title),
    stringField(4, s.description),
    stringsField(19, s.required),
  ];
  if (s.additionalProperties !== undefined) {
    const item =
      typeof s.additionalProperties === 'boolean'
        ? boolField(2, s.additionalProperties)
        : messageField(1, schema(s.additionalProperties as Json, `${where}.additionalProperties`));
    parts.push(messageField(21, item));
  }
  if (s.type !== undefined) parts.push(messageField(22, stringsField(1, Array.isArray(s.type) ? s.type : [s.type])));
  if (s.items !== undefined) {
    const items = (Array.isArray(s.items) ? s.items : [s.items]) as Json[];
    parts.push(messageField(23, Buffer.concat(items.map((item) => messageField(1, schema(item, `${where}.items`))))));
  }
  for (const sub of (s.allOf ?? []) as Json[]) parts.push(messageField(24, schema(sub, `${where}.allOf`)));
  if (s.properties !== undefined) parts.push(messageField(25, named(1, s.properties, schema, `${where}.properties`)));
  parts.push(boolField(27, s.readOnly), extensions(31, s));
  return Buffer.concat(parts);
}

/** A `ParametersItem`: a body parameter, or a query or path parameter (`NonBodyParameter`). */
function parameter(p: Json, where: string): Buffer {
  let encoded: Buffer;
  if (p.in === 'body') {
    checkKeys(p, ['description', 'name', 'in', 'required', 'schema'], where);
    const body = Buffer.concat([
      stringField(1, p.description),
      stringField(2, p.name),
      stringField(3, p.in),
      boolField(4, p.required),
      messageField(5, schema(p.schema as Json, `${where}.schema`)),
      extensions(6, p),
    ]);
    encoded = messageField(1, body);
  } else if (p.in === 'query' || p.in === 'path') {
    checkKeys(p, ['required', 'in', 'description', 'name', 'type', 'format', 'uniqueItems'], where);
    const common = [
      boolField(1, p.required),
      stringField(2, p.in),
      stringField(3, p.description),
      stringField(4, p.name),
    ];
    // QueryParameterSubSchema has allow_empty_value at 5, so its later fields sit one number higher.
    const sub =
      p.in === 'query'
        ? Buffer.concat([
            ...common,
            stringField(6, p.type),
            stringField(7, p.format),
            boolField(20, p.uniqueItems),
            extensions(23, p),
          ])
        : Buffer.concat([
            ...common,
            stringField(5, p.type),
            stringField(6, p.format),
            boolField(19, p.uniqueItems),
            extensions(22, p),
          ]);
    encoded = messageField(2, messageField(p.in === 'query' ? 3 : 4, sub));
  } else {
    throw new Error(`openapi v2: cannot encode a parameter in ${String(p.in)} (${where})`);
  }
  return messageField(1, encoded);
}

function response(r: Json, where: string): Buffer {
  checkKeys(r, ['description', 'schema'], where);
  const parts = [stringField(1, r.description)];
  if (r.schema !== undefined) parts.push(messageField(2, messageField(1, schema(r.schema as Json, `${where}.schema`))));
  parts.push(extensions(5, r));
  // ResponseValue { oneof { Response response = 1; JsonReference json_reference = 2; } }
  return messageField(1, Buffer.concat(parts));
}

function operation(op: Json, where: string): Buffer {
  checkKeys(
    op,
    [
      'tags',
      'summary',
      'description',
      'operationId',
      'produces',
      'consumes',
      'parameters',
      'responses',
      'schemes',
      'deprecated',
    ],
    where,
  );
  return Buffer.concat([
    stringsField(1, op.tags),
    stringField(2, op.summary),
    stringField(3, op.description),
    stringField(5, op.operationId),
    stringsField(6, op.produces),
    stringsField(7, op.consumes),
    ...((op.parameters ?? []) as Json[]).map((p, i) => messageField(8, parameter(p, `${where}.parameters[${i}]`))),
    messageField(9, named(1, op.responses, response, `${where}.responses`)),
    stringsField(10, op.schemes),
    boolField(11, op.deprecated),
    extensions(13, op),
  ]);
}

const OPERATIONS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

function pathItem(item: Json, where: string): Buffer {
  checkKeys(item, [...Object.keys(OPERATIONS), 'parameters'], where);
  const parts: Buffer[] = [];
  for (const [verb, number] of Object.entries(OPERATIONS)) {
    if (item[verb] !== undefined) parts.push(messageField(number, operation(item[verb] as Json, `${where}.${verb}`)));
  }
  ((item.parameters ?? []) as Json[]).forEach((p, i) =>
    parts.push(messageField(9, parameter(p, `${where}.parameters[${i}]`))),
  );
  parts.push(extensions(10, item));
  return Buffer.concat(parts);
}

/** The document as gnostic's `openapi.v2.Document` protobuf. */
export function encodeOpenApiV2(doc: Json): Buffer {
  checkKeys(doc, ['swagger', 'info', 'paths', 'definitions'], 'the document');
  const info = (doc.info ?? {}) as Json;
  checkKeys(info, ['title', 'version', 'description'], 'info');
  return Buffer.concat([
    stringField(1, doc.swagger),
    messageField(
      2,
      Buffer.concat([
        stringField(1, info.title),
        stringField(2, info.version),
        stringField(3, info.description),
        extensions(7, info),
      ]),
    ),
    messageField(8, named(2, doc.paths, pathItem, 'paths')),
    messageField(9, named(1, doc.definitions, schema, 'definitions')),
    extensions(16, doc),
  ]);
}

export interface OpenApiV2Response {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Media ranges of an Accept header, best first (quality, then specificity), as goautoneg sorts them. */
function acceptClauses(accept: string): { type: string; subtype: string }[] {
  return accept
    .split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.split(';').map((p) => p.trim());
      const q = params.find((p) => p.startsWith('q='));
      const [type = '', subtype = ''] = range.toLowerCase().split('/');
      return { type, subtype, q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((c) => c.type && c.subtype && c.q > 0)
    .sort(
      (a, b) =>
        b.q - a.q ||
        Number(b.subtype !== '*') - Number(a.subtype !== '*') ||
        Number(b.type !== '*') - Number(a.type !== '*') ||
        a.index - b.index,
    );
}

/**
 * The answer to `GET /openapi/v2`: the first acceptable of JSON, the protobuf type and its
 * deprecated `@` spelling (served as the protobuf type), with an ETag of the JSON's SHA-512;
 * 406 when nothing is acceptable.
 */
export function serveOpenApiV2(
  doc: Json,
  accept: string | undefined,
  ifNoneMatch: string | undefined,
): OpenApiV2Response {
  const json = Buffer.from(JSON.stringify(doc));
  const etag = `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"`;
  const offered: [string, () => Buffer, string][] = [
    [OPENAPI_V2_JSON, () => json, OPENAPI_V2_JSON],
    [OPENAPI_V2_PROTOBUF_DEPRECATED, () => encodeOpenApiV2(doc), OPENAPI_V2_PROTOBUF],
    [OPENAPI_V2_PROTOBUF, () => encodeOpenApiV2(doc), OPENAPI_V2_PROTOBUF],
  ];
  for (const clause of acceptClauses(accept || '*/*')) {
    for (const [mediaType, body, contentType] of offered) {
      const [type, subtype] = mediaType.split('/');
      if ((clause.type === type || clause.type === '*') && (clause.subtype === subtype || clause.subtype === '*')) {
        const headers = { 'Content-Type': contentType, Etag: etag, Vary: 'Accept' };
        if (ifNoneMatch === etag) return { status: 304, headers, body: Buffer.alloc(0) };
        return { status: 200, headers, body: body() };
      }
    }
  }
  return { status: 406, headers: { Vary: 'Accept' }, body: Buffer.alloc(0) };
}
