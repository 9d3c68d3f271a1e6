/**
 * Headers cross the tunnel as one HTTP/1.1 field block ("name: value" lines joined by CRLF).
 * In memory they are flat `[name, value, name, value, ...]` lists, the shape of Node's
 * `rawHeaders`, so repeated names and their order survive the trip.
 */

export type HeaderBlockErrorCode = 'ERR_HEADER_NAME' | 'ERR_HEADER_VALUE' | 'ERR_HEADER_LIST';

/**
 * A header list no block can carry as it is. Its message never repeats the refused text (a
 * credential, or an injection attempt), only the header's name once that is a valid token.
 */
export class HeaderBlockError extends Error {
  constructor(
    readonly code: HeaderBlockErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HeaderBlockError';
  }
}

/** RFC 9110 5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * RFC 9110 5.5: a field value is visible ASCII, obs-text (0x80-0xff, as latin1 characters) and
 * inner SP or HTAB. No CR, LF, NUL or other control character: one would end the line and start
 * a header of the sender's choosing.
 */
const NOT_FIELD_CONTENT = /[^\t\x20-\x7e\x80-\xff]/;
/** Surrounding whitespace is not part of a value; the receiving end strips it, so it cannot arrive as sent. */
const SURROUNDING_WHITESPACE = /^[\t ]|[\t ]$/;

const isOws = (code: number): boolean => code === 0x20 || code === 0x09;

const isFieldValue = (value: string): boolean => !NOT_FIELD_CONTENT.test(value) && !SURROUNDING_WHITESPACE.test(value);

/**
 * The block of `flat`; throws HeaderBlockError rather than rewrite a name that is not a token or
 * a value that is not a field value, so every line of a block is exactly one header.
 */
export function toHeaderBlock(flat: readonly string[]): string {
  if (flat.length % 2 !== 0) {
    throw new HeaderBlockError('ERR_HEADER_LIST', `header ${flat.length >> 1} has a name but no value`);
  }
  let block = '';
  for (let i = 0; i < flat.length; i += 2) {
    const name = flat[i] as string;
    const value = flat[i + 1] as string;
    if (!TOKEN.test(name)) {
      throw new HeaderBlockError('ERR_HEADER_NAME', `the name of header ${i >> 1} is not an RFC 9110 token`);
    }
    if (!isFieldValue(value)) {
      const why = 'a control character, a line break, a character above U+00FF or surrounding whitespace';
      throw new HeaderBlockError('ERR_HEADER_VALUE', `the value of ${name} is not a field value (${why})`);
    }
    block += `${i === 0 ? '' : '\r\n'}${name}: ${value}`;
  }
  return block;
}

/**
 * The flat `[name, value, ...]` list of a header block. A line `toHeaderBlock` would not have
 * written (no colon, a name that is not a token, a stray CR or LF, a NUL) is dropped: a block
 * from the other end is passed on to a parser or a socket, never trusted.
 */
export function fromHeaderBlock(block: string): string[] {
  const flat: string[] = [];
  if (block === '') return flat;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon);
    // Only OWS (SP, HTAB) surrounds a value; String#trim would also strip obs-text's NBSP. A scan,
    // not a regular expression: this runs for every header of every answer.
    let start = colon + 1;
    let end = line.length;
    while (start < end && isOws(line.charCodeAt(start))) start++;
    while (end > start && isOws(line.charCodeAt(end - 1))) end--;
    const value = line.slice(start, end);
    if (TOKEN.test(name) && !NOT_FIELD_CONTENT.test(value)) flat.push(name, value);
  }
  return flat;
}

/** A Connect code's enum name as both ends label metrics with it: `PermissionDenied` → `permission_denied`. */
export function codeLabel(name: string): string {
  return name.replace(/[A-Z]/g, (c, i: number) => `${i ? '_' : ''}${c.toLowerCase()}`);
}
