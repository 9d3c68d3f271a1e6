import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/** A URL as the application log shows it: a console ticket in the query is a credential, so it is not. */
function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  return url.slice(0, query) + url.slice(query).replace(/([?&]ticket=)[^&#]*/gi, '$1[redacted]');
}

/** Fastify's request serializer, but with `url` redacted. */
const serializeRequest = (req: FastifyRequest) => ({
  method: req.method,
  url: redactUrl(req.url),
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

/** The application log's options with the URL-redacting request serializer, which replaces any other. */
export function redactingLogger(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (typeof logger !== 'object') return logger;
  return { ...logger, serializers: { ...logger.serializers, req: serializeRequest } };
}
