import { Type } from 'typebox';
import type { TString } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  DNS_LABEL_MAX_LENGTH,
  DNS_LABEL_PATTERN,
  DNS_SUBDOMAIN_MAX_LENGTH,
  DNS_SUBDOMAIN_PATTERN,
} from '@gsp/platform-contract';
import { BadRequest, NotFound } from '../errors.js';

/** Path and query pieces the game-server, fleet and profile routes share. */
/** What a name that is no DNS-1123 label is told: the rule, not the pattern. */
export const DNS_LABEL_RULE =
  'must be a DNS-1123 label: lower-case letters, digits and "-", ' +
  'starting and ending with a letter or digit, at most 63 characters';

/** A DNS-1123 label (a namespace, a game server, a profile, a snapshot) as a TypeBox string. */
export function dnsLabel(annotations: { errorMessage?: string; description?: string } = {}): TString {
  return Type.String({ minLength: 1, maxLength: DNS_LABEL_MAX_LENGTH, pattern: DNS_LABEL_PATTERN, ...annotations });
}

/** A DNS-1123 subdomain (a VolumeSnapshot's name) as a TypeBox string. */
export function dnsSubdomain(annotations: { errorMessage?: string; description?: string } = {}): TString {
  return Type.String({
    minLength: 1,
    maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
    pattern: DNS_SUBDOMAIN_PATTERN,
    ...annotations,
  });
}

export const Namespace = dnsLabel({ errorMessage: DNS_LABEL_RULE, description: 'A Kubernetes namespace.' });
export const Name = dnsLabel({ errorMessage: DNS_LABEL_RULE });
export const MAX_LIMIT = 1000;

export const ListQuery = Type.Object({
  namespace: Type.Optional(Namespace),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      description: 'At most this many items; a `Link: <...>; rel="next"` header gives the rest.',
    }),
  ),
  continue: Type.Optional(Type.String({ maxLength: 400, description: "From the previous page's `Link` header." })),
});

/** Where a page ended: the namespace and name of its last item, opaque to clients. */
function encodeContinue(item: { namespace: string; name: string }): string {
  return Buffer.from(JSON.stringify([item.namespace, item.name])).toString('base64url');
}

function decodeContinue(token: string): [string, string] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((p) => typeof p === 'string'))
      return parsed as [string, string];
  } catch {
    // Reported below.
  }
  throw new BadRequest("continue must be the token from a previous page's Link header");
}

const after = (a: { namespace: string; name: string }, [namespace, name]: [string, string]): boolean =>
  a.namespace > namespace || (a.namespace === namespace && a.name > name);

/**
 * One page of `items` (sorted by namespace, then name) as the query asks, with a `Link` header
 * to the next when there is more. The token names a position, not an offset, so items added or
 * removed meanwhile neither repeat nor skip the others.
 */
export function page<T extends { namespace: string; name: string }>(
  request: FastifyRequest,
  reply: FastifyReply,
  items: readonly T[],
): T[] {
  const { limit, continue: token } = request.query as { limit?: number; continue?: string };
  const from = token === undefined ? items : items.filter((i) => after(i, decodeContinue(token)));
  if (limit === undefined || from.length <= limit) return [...from];
  const pageItems = from.slice(0, limit);
  const next = new URLSearchParams(request.query as Record<string, string>);
  next.set('continue', encodeContinue(pageItems[pageItems.length - 1] as T));
  reply.header('link', `<${request.url.split('?')[0]}?${next.toString()}>; rel="next"`);
  return pageItems;
}

/** Whether the caller of a `filtered` list may see namespace `namespace` (the role check set what it may). */
export function mayList(request: FastifyRequest, namespace: string): boolean {
  const visible = request.visibleNamespaces;
  return visible === null || visible === 'all' || visible.has(namespace);
}

/** A list's `?namespace=` naming one the caller may not see is a 404, as if it held nothing of theirs. */
export function checkListedNamespace(request: FastifyRequest, namespace: string | undefined, what: string): void {
  if (namespace !== undefined && !mayList(request, namespace))
    throw new NotFound(`namespace ${namespace} is not one you may list ${what} in`);
}

/**
 * A `filtered` list as its query asks: a `?namespace=` the caller may not list is a 404, items
 * of namespaces it may not see are left out, and the rest is paged. `items` (sorted by namespace,
 * then name) are those of one namespace, or of all when it is undefined.
 */
export function listPage<T extends { namespace: string; name: string }>(
  request: FastifyRequest,
  reply: FastifyReply,
  what: string,
  items: (namespace: string | undefined) => readonly T[],
): T[] {
  const { namespace } = request.query as { namespace?: string };
  checkListedNamespace(request, namespace, what);
  return page(
    request,
    reply,
    items(namespace).filter((item) => mayList(request, item.namespace)),
  );
}
