import type { IncomingHttpHeaders } from 'node:http';

/** What a secret is replaced by in a record or a log line. */
export const REDACTED = '[REDACTED]';

/**
 * Query parameters whose values are credentials: API keys and tokens under the names clients put
 * them, the console's ticket, a password, OAuth's client secret, and an OAuth callback's `code`
 * and `state` (either lets whoever reads it finish someone else's sign-in). Compared in lower case.
 */
export const CREDENTIAL_QUERY_PARAMS: ReadonlySet<string> = new Set([
  'access_token',
  'api_key',
  'apikey',
  'client_secret',
  'code',
  'id_token',
  'key',
  'password',
  'refresh_token',
  'secret',
  'state',
  'ticket',
  'token',
]);

/** `text` percent-decoded once (`+` is a space, as in a query), or `text` itself when it is malformed. */
function decodedName(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * `url` with the value of every credential query parameter (CREDENTIAL_QUERY_PARAMS, its name
 * compared decoded and in lower case, so `%6Bey=` is `key=`) replaced by `[REDACTED]`.
 */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const name = decodedName(pair.slice(0, equals)).toLowerCase();
      return CREDENTIAL_QUERY_PARAMS.has(name) ? `${pair.slice(0, equals + 1)}${REDACTED}` : pair;
    });
  return `${url.slice(0, mark + 1)}${query.join('&')}`;
}

/** Secrets shorter than this are not searched for (a 3-letter one would blank every match of it). */
export const MIN_SECRET_LENGTH = 6;

/**
 * A secret recognised by its shape rather than known in advance (an API key known only by its
 * hash): `pattern` (global) finds candidates in the decoded text, `matches` says which are secrets.
 */
export interface SecretPattern {
  pattern: RegExp;
  matches(candidate: string): boolean;
}

export type Secret = string | SecretPattern;

/**
 * The credentials a request carries in its headers and query: its `X-API-Key`, its Authorization
 * value, the token in it or what a Basic one decodes to (and its password), the value of each
 * credential query parameter, WebSocket subprotocols and every cookie's value. Longest first, so
 * that one containing another is replaced whole.
 */
export function requestCredentials(headers: IncomingHttpHeaders, url: string): string[] {
  const found = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) found.add(value);
  };
  add(headers['x-api-key']);
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    add(authorization);
    const space = authorization.indexOf(' ');
    const credentials = space < 0 ? '' : authorization.slice(space + 1).trim();
    add(credentials);
    if (/^basic$/i.test(authorization.slice(0, space))) {
      const decoded = Buffer.from(credentials, 'base64').toString('utf8');
      add(decoded);
      add(decoded.slice(decoded.indexOf(':') + 1));
    }
  }
  const mark = url.indexOf('?');
  if (mark >= 0)
    for (const [name, value] of new URLSearchParams(url.slice(mark + 1)))
      if (CREDENTIAL_QUERY_PARAMS.has(name.toLowerCase())) add(value);
  const protocols = headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') for (const p of protocols.split(',')) add(p.trim());
  const cookies = headers.cookie;
  if (typeof cookies === 'string') for (const part of cookies.split(';')) add(part.slice(part.indexOf('=') + 1).trim());
  return [...found].sort((a, b) => b.length - a.length);
}

/** A text as bytes, each byte knowing the range of the original text it came from. */
interface View {
  bytes: Buffer;
  from: Uint32Array;
  to: Uint32Array;
}

/** `text` as UTF-8 bytes, each mapped to the characters it encodes. */
function rawView(text: string): View {
  const bytes = Buffer.from(text, 'utf8');
  const from = new Uint32Array(bytes.length);
  const to = new Uint32Array(bytes.length);
  let b = 0;
  for (let i = 0; i < text.length;) {
    const point = text.codePointAt(i) as number;
    const units = point > 0xffff ? 2 : 1;
    // A lone surrogate is written as U+FFFD, three bytes, as every BMP point from U+0800.
    const size = point < 0x80 ? 1 : point < 0x800 ? 2 : point <= 0xffff ? 3 : 4;
    for (let k = 0; k < size; k++, b++) {
      from[b] = i;
      to[b] = i + units;
    }
    i += units;
  }
  return { bytes, from, to };
}

const isHex = (byte: number | undefined): boolean =>
  byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66));

/** `view` with each `%XX` (either case) decoded to its byte; undefined when there is none. */
function decodedView(view: View): View | undefined {
  const { bytes } = view;
  const out = Buffer.allocUnsafe(bytes.length);
  const from = new Uint32Array(bytes.length);
  const to = new Uint32Array(bytes.length);
  let n = 0;
  let decoded = false;
  for (let i = 0; i < bytes.length; n++) {
    if (bytes[i] === 0x25 && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[n] = parseInt(bytes.toString('latin1', i + 1, i + 3), 16);
      from[n] = view.from[i] as number;
      to[n] = view.to[i + 2] as number;
      decoded = true;
      i += 3;
    } else {
      out[n] = bytes[i] as number;
      from[n] = view.from[i] as number;
      to[n] = view.to[i] as number;
      i += 1;
    }
  }
  return decoded ? { bytes: out.subarray(0, n), from: from.subarray(0, n), to: to.subarray(0, n) } : undefined;
}

/** How many times a text is percent-decoded to look for secrets (a URL encoded twice is still read). */
const DECODINGS = 3;

/** The ranges of `text`'s characters that are `secrets` in any of its views. */
function secretRanges(text: string, secrets: readonly Secret[]): [number, number][] {
  const ranges: [number, number][] = [];
  const literal = secrets.flatMap((s) => (typeof s === 'string' ? [Buffer.from(s, 'utf8')] : []));
  const patterns = secrets.filter((s): s is SecretPattern => typeof s !== 'string');
  let view: View | undefined = rawView(text);
  for (let level = 0; view !== undefined && level <= DECODINGS; level++) {
    const { bytes, from, to } = view;
    for (const secret of literal)
      for (let at = bytes.indexOf(secret); at >= 0; at = bytes.indexOf(secret, at + 1))
        ranges.push([from[at] as number, to[at + secret.length - 1] as number]);
    if (patterns.length > 0) {
      // One character per byte: the positions of a match are those of its bytes.
      const latin1 = bytes.toString('latin1');
      for (const { pattern, matches } of patterns)
        for (const match of latin1.matchAll(pattern))
          if (match[0].length > 0 && matches(match[0]))
            ranges.push([from[match.index] as number, to[match.index + match[0].length - 1] as number]);
    }
    view = decodedView(view);
  }
  return ranges;
}

/**
 * `text` with every occurrence of each of `secrets` replaced by `[REDACTED]`, whether written as
 * it is or percent-encoded in any way (any characters, hex digits of either case, up to three
 * times over): the forms a caller may put a credential in a path, a header or a console line.
 */
export function redactSecrets(text: string, secrets: readonly Secret[]): string {
  if (secrets.length === 0) return text;
  // The common case, nothing encoded: plain searches, a secret that contains another first.
  if (!text.includes('%')) {
    let clean = text;
    for (const secret of [...secrets].sort(longestFirst))
      if (typeof secret !== 'string')
        clean = clean.replace(secret.pattern, (found) => (secret.matches(found) ? REDACTED : found));
      else if (clean.includes(secret)) clean = clean.split(secret).join(REDACTED);
    return clean;
  }
  const ranges = secretRanges(text, secrets).sort((a, b) => a[0] - b[0]);
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of ranges) {
    if (end <= at) continue;
    if (start >= at) out += `${text.slice(at, start)}${REDACTED}`;
    at = end;
  }
  return out + text.slice(at);
}

/** Patterns, then strings from the longest. */
const longestFirst = (a: Secret, b: Secret): number =>
  (typeof b === 'string' ? b.length : Number.MAX_SAFE_INTEGER) -
  (typeof a === 'string' ? a.length : Number.MAX_SAFE_INTEGER);

/** What a log line shows of a request: Fastify's request serializer, with no credential in its URL. */
interface RequestLike {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers: IncomingHttpHeaders;
  socket?: { remotePort?: number | undefined } | null;
}

/**
 * Fastify's request serializer with the URL cleaned: credential query values (`redactUrl`) and
 * the request's own credentials wherever they were put in the path, however encoded.
 */
export function serializeRequest(req: RequestLike): Record<string, unknown> {
  return {
    method: req.method,
    url: redactSecrets(redactUrl(req.url), requestCredentials(req.headers, req.url)),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
