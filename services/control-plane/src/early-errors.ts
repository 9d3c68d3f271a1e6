import type { FastifyError } from 'fastify';

/**
 * Requests refused before routing, so before any hook: by Fastify (a URL it cannot decode, its
 * frameworkErrors) or by Node (bytes that are not HTTP, headers too large, a client too slow,
 * answered by service-kit's clientErrorHandler). app.ts audits them and answers problem+json.
 */

/** The status and words for a request Fastify refuses before routing it. */
export function frameworkProblem(error: FastifyError, url: string): { status: number; detail: string } {
  const path = JSON.stringify(url.split('?')[0]);
  if (error.code === 'FST_ERR_BAD_URL') {
    return { status: 400, detail: `the path ${path} is not a valid URL: it has malformed percent-encoding` };
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return { status: 414, detail: `a segment of the path ${path} is too long` };
  return { status: 500, detail: 'The server could not route the request.' };
}

/** The status service-kit's clientErrorHandler answers a client error `code` with. */
export function clientErrorStatus(code: string | undefined): number {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  return 400;
}

/** What Node read of a request it could not parse (its `rawPacket`): the request line and user agent, if they came. */
export function seenOf(rawPacket: unknown): { method: string; path: string; userAgent: string } {
  const text = Buffer.isBuffer(rawPacket) ? rawPacket.subarray(0, 8192).toString('latin1') : '';
  const line = /^([A-Z]{1,20}) (\S{1,2048}) HTTP\/\d\.\d\r?\n/.exec(text);
  const userAgent = /\r?\nuser-agent: *([^\r\n]*)/i.exec(text)?.[1] ?? '';
  return {
    method: line?.[1] ?? '',
    path: line ? Buffer.from(line[2] ?? '', 'latin1').toString('utf8') : '',
    userAgent,
  };
}
