import { InvalidRequestError } from '@gsp/service-kit';

/** The largest outbox id (a PostgreSQL bigserial). */
const MAX_ID = 2n ** 63n - 1n;

export const LAST_EVENT_ID_RULE = `must be the id of an event of this stream: a whole number from 0 to ${MAX_ID}`;

/**
 * Where a client resumes: the `Last-Event-ID` header an EventSource sends when it reconnects,
 * else the `lastEventId` query parameter of a client that cannot set headers. The header wins:
 * an EventSource opened on `...?lastEventId=5` keeps that URL and sends newer ids in the header.
 * Empty means no id, as when the SSE `id` field was empty. Returns undefined for neither.
 */
export function resumeAfter(header: string | string[] | undefined, query: string | undefined): bigint | undefined {
  if (Array.isArray(header))
    throw new InvalidRequestError([
      { in: 'header', pointer: '#/last-event-id', detail: 'Last-Event-ID must be given at most once' },
    ]);
  if (header !== undefined && header !== '') return parseEventId(header, 'header', 'Last-Event-ID');
  if (query !== undefined && query !== '') return parseEventId(query, 'query', 'lastEventId');
  return undefined;
}

function parseEventId(raw: string, where: 'header' | 'query', name: string): bigint {
  const id = /^(0|[1-9][0-9]{0,18})$/.test(raw) ? BigInt(raw) : undefined;
  if (id === undefined || id > MAX_ID) {
    const pointer = where === 'header' ? '#/last-event-id' : '#/lastEventId';
    throw new InvalidRequestError([{ in: where, pointer, detail: `${name} ${LAST_EVENT_ID_RULE}` }]);
  }
  return id;
}
