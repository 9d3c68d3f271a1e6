import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import fc from 'fast-check';

/** The parts of an OpenAPI 3 document the fuzzer reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation | unknown>>;
}

interface OpenApiOperation {
  parameters?: { name: string; in: string; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  enum?: unknown[];
  const?: unknown;
}

/** One route of the document: its method, its path template and what it takes. */
export interface Operation {
  method: string;
  /** `/api/v1/tenants/{org}/members/{subject}` */
  path: string;
  query: string[];
  /** Field names of a JSON body, when the route takes one. */
  bodyFields: string[] | undefined;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const op = value as OpenApiOperation;
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const schema = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        query,
        bodyFields: schema ? Object.keys(schema.properties ?? {}) : undefined,
      });
    }
  }
  return ops;
}

/** A request as it goes on the wire: the path is raw (already percent-encoded, or deliberately not). */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The route it was generated from, for messages. */
  route: string;
}

/**
 * Names every JavaScript object inherits: a server that looks user input up on a plain object
 * (`profile.actions[action]`) finds these instead of nothing. Sent as path segments, body keys and values.
 */
const INHERITED_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

/**
 * Halves of characters (unpaired UTF-16 surrogates, which JSON can escape but no UTF-8 text, nor
 * PostgreSQL, can hold) and characters that show nothing yet change what is shown: the Arabic letter
 * mark, zero-width space and joiners, word joiner, byte order mark, tag characters, bidirectional
 * controls and isolates. A server must refuse each (400) or clean it, never store it or answer 500.
 */
export const TRICKY_CHARACTERS = [
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ude00\ud83d', // a pair in the wrong order: two halves
  '\u061c',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\ufeff',
  '\u{e0001}',
  '\u{e0041}',
  '\u{e007f}',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2069',
];

/** Text mixing ordinary characters with TRICKY_CHARACTERS, or made of them only. */
export const trickyText: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom(...TRICKY_CHARACTERS)), {
    minLength: 1,
    maxLength: 6,
  })
  .map((parts) => parts.join(''));

/**
 * `text` percent-encoded, and a lone surrogate as a careless client sends it: the three bytes UTF-8
 * would give its code point (WTF-8, `%ED%A0%80`), which are no UTF-8 (`encodeURIComponent` throws).
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0xd800 || code > 0xdfff) out += encodeURIComponent(char);
    else
      for (const byte of [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)])
        out += `%${byte.toString(16).toUpperCase()}`;
  }
  return out;
}

/** Path segments a careless server trips over, raw as they go on the wire. */
const HOSTILE_SEGMENTS = [
  ...INHERITED_NAMES,
  '%zz',
  '%',
  '%E0%A4%A',
  '%00',
  'a%00b',
  '%0D%0AX-Injected:%201',
  '..',
  '%2e%2e',
  '%2F',
  '%C0%AF',
  '%FF%FE',
  '%7F',
  '%C2%85',
  'x'.repeat(300),
  '%20',
  'ñ',
  '%F0%9F%92%A9',
  '%ED%A0%80',
  'a%ED%B0%80b',
  '%E2%80%8B',
  '%EF%BB%BF',
  '%E2%80%AE',
  '%F3%A0%80%81',
  '{id}',
  '-',
  '0',
  'default',
];

const segment = (plausible: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...plausible) },
    { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    { weight: 1, arbitrary: fc.constantFrom(...INHERITED_NAMES) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: trickyText.map(percentEncode) },
  );

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const wrongTyped = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.string({ maxLength: 50 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
);
const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  trickyText,
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\r\nb',
    '100000000d',
    '-1',
    '1e309',
    'NaN',
    ...INHERITED_NAMES,
    'x'.repeat(2000),
  ),
);

/** A body: random JSON, the route's own fields with any values, or bytes that are not JSON at all. */
function bodyOf(fields: string[] | undefined): fc.Arbitrary<string | undefined> {
  const shaped =
    fields && fields.length > 0
      ? fc
          .dictionary(
            fc.oneof(fc.constantFrom(...fields), fc.constantFrom('extra', '', ...INHERITED_NAMES)),
            fc.oneof(wrongTyped, hostileString),
            {
              maxKeys: fields.length + 2,
            },
          )
          .map((o) => JSON.stringify(o))
      : fc.constant('{}');
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: shaped },
    { weight: 2, arbitrary: jsonValue.map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '{"a":', '\u0000', 'null', '[]', '"', '{"value": tru}', 'x'.repeat(20_000)),
    },
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/problem+json',
  'multipart/form-data; boundary=x',
  'garbage',
];

const ACCEPTS = [
  '*/*',
  'application/json',
  'text/event-stream',
  'application/yaml',
  'text/html',
  'application/xml;q=0.1',
  '',
  'x/y;q=abc',
];

export interface FuzzOptions {
  /** Credentials that pass, so most requests reach the handler. */
  credentials: Record<string, string>[];
  /** Values worth trying in path segments (an existing org, a known id). */
  plausible?: string[];
  /**
   * Values worth trying for one path parameter, by its name in the template, instead of `plausible`
   * (a known cluster id for `{clusterId}`, Kubernetes paths for `{path}`). Inserted raw, so a value
   * may hold slashes.
   */
  plausibleFor?: Record<string, string[]>;
}

/**
 * Requests for the routes of `ops`: hostile paths, odd queries, bodies of any shape, odd headers, good and bad
 * credentials.
 */
export function requests(ops: Operation[], options: FuzzOptions): fc.Arbitrary<FuzzRequest> {
  const plausible = options.plausible && options.plausible.length > 0 ? options.plausible : ['default'];
  const credential = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...options.credentials) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        {},
        { authorization: 'Bearer ' },
        { authorization: 'Bearer not.a.jwt' },
        { authorization: 'Basic !!!' },
        { authorization: 'Basic ' + Buffer.from('\u0000:\u0000').toString('base64') },
        { 'x-api-key': 'gsp_' },
        { authorization: 'Negotiate abc' },
      ),
    },
  );
  return fc.constantFrom(...ops).chain((op) => {
    const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    return fc
      .record({
        segments: fc.tuple(...names.map((name) => segment(options.plausibleFor?.[name] ?? plausible))),
        query: fc.array(
          fc.tuple(
            fc.oneof(fc.constantFrom(...(op.query.length ? op.query : ['q'])), fc.constantFrom('x', '%zz', '')),
            hostileString,
          ),
          {
            maxLength: 3,
          },
        ),
        body: op.method === 'GET' || op.method === 'DELETE' ? fc.constant(undefined) : bodyOf(op.bodyFields),
        contentType: fc.constantFrom(...CONTENT_TYPES),
        accept: fc.constantFrom(...ACCEPTS),
        credential,
        extra: fc.constantFrom<Record<string, string>>(
          {},
          { 'if-none-match': '"x"' },
          { 'content-encoding': 'gzip' },
          { 'x-request-id': '\u00ff' },
          { 'x-forwarded-for': 'garbage' },
        ),
      })
      .map(({ segments, query, body, contentType, accept, credential, extra }) => {
        let i = 0;
        const path = op.path.replace(/\{[^}]+\}/g, () => segments[i++] as string);
        const search = query
          .map(([k, v]) => `${encodeURIComponent(k)}=${k === '%zz' ? '%zz' : percentEncode(v)}`)
          .join('&');
        const headers: Record<string, string> = { ...credential, ...extra };
        if (accept !== '') headers.accept = accept;
        if (body !== undefined) headers['content-type'] = contentType;
        // Latin-1 only: Node's client refuses other characters in a header value.
        for (const [k, v] of Object.entries(headers)) headers[k] = v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
        return {
          method: op.method,
          path: search ? `${path}?${search}` : path,
          headers,
          ...(body === undefined ? {} : { body }),
          route: `${op.method} ${op.path}`,
        };
      });
  });
}

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * Sends one request over real HTTP (keep-alive through `agent`) and reads the whole answer, with a
 * deadline. A kept-alive socket the server closed just before it was reused is retried once on a
 * new one, as Node's documentation advises (`reusedSocket`): that race is the client's, not a fault.
 * An `https:` base URL goes over TLS: pass an `https.Agent` (with the server's `ca`).
 */
export async function send(
  baseUrl: string,
  req: FuzzRequest,
  agent: http.Agent,
  timeoutMs = 10_000,
): Promise<FuzzResponse> {
  try {
    return await sendOnce(baseUrl, req, agent, timeoutMs);
  } catch (err) {
    if (!(err instanceof ReusedSocketClosed)) throw err;
    return sendOnce(baseUrl, req, agent, timeoutMs);
  }
}

class ReusedSocketClosed extends Error {}

/** `err`, named after the request it ended: what a failing property reports. */
function requestFailed(req: FuzzRequest, err: Error): Error {
  const body = req.body?.length ?? 0;
  return new Error(`${req.method} ${req.path} ${JSON.stringify(req.headers)} body ${body} bytes: ${err.message}`);
}

function sendOnce(baseUrl: string, req: FuzzRequest, agent: http.Agent, timeoutMs: number): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: req.headers,
        agent,
        timeout: timeoutMs,
      },
      (res) => {
        // A stream that was accepted (server-sent events) is judged by its status line alone.
        if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream')) {
          resolve({ status: 200, headers: res.headers, body: '' });
          return r.destroy();
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', (err: NodeJS.ErrnoException) => {
      if (r.reusedSocket && (err.code === 'ECONNRESET' || err.message === 'socket hang up'))
        return reject(new ReusedSocketClosed());
      reject(requestFailed(req, err));
    });
    r.end(req.body);
  });
}

/**
 * Sends one request over an HTTP/2 session (a server that speaks nothing else, such as a gRPC or
 * Connect endpoint) and reads the whole answer, with a deadline. `headers` holds no pseudo-headers,
 * and `body` is decoded as latin1 so that binary frames survive byte for byte (`Buffer.from(body, 'latin1')`).
 */
export function sendHttp2(
  session: http2.ClientHttp2Session,
  req: FuzzRequest,
  timeoutMs = 10_000,
): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => reject(requestFailed(req, err));
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request(
        { ...req.headers, ':method': req.method, ':path': req.path },
        { endStream: req.body === undefined },
      );
    } catch (err) {
      return failed(err as Error);
    }
    stream.setTimeout(timeoutMs, () => stream.close(http2.constants.NGHTTP2_CANCEL));
    let head: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader = {};
    const chunks: Buffer[] = [];
    stream.on('response', (headers) => (head = headers));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('error', failed);
    stream.on('close', () => {
      const { ':status': status, ...headers } = head;
      if (status === undefined) return failed(new Error(`no answer (stream closed with code ${stream.rstCode})`));
      resolve({ status, headers: headers as http.IncomingHttpHeaders, body: Buffer.concat(chunks).toString('latin1') });
    });
    if (req.body !== undefined) stream.end(req.body);
  });
}

/** What is wrong with an answer: a 5xx, or an error that is not problem+json. Undefined when it is fine. */
export function problemWithAnswer(res: FuzzResponse): string | undefined {
  if (res.status >= 500) return `answered ${res.status}: ${res.body.slice(0, 300)}`;
  if (res.status >= 400 && !String(res.headers['content-type'] ?? '').startsWith('application/problem+json')) {
    return `answered ${res.status} as ${String(res.headers['content-type'])}: ${res.body.slice(0, 300)}`;
  }
  return undefined;
}
