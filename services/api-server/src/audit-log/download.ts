import { Readable } from 'node:stream';
import type { Queryable } from '../db/tx.js';
import { lastAuditLogId, readAuditLogAfter } from './store.js';
import type { AuditLogFilter, AuditLogItem } from './store.js';

/** Entries read from PostgreSQL at a time: what a download holds in memory besides the socket's buffers. */
export const DOWNLOAD_BATCH_SIZE = 500;

/**
 * Every entry matching `filter` that was committed when the download started (and perhaps some
 * committed while it ran), oldest first, one keyset page at a time: the next page is read only
 * once the client has taken the previous one. Pages rather than a cursor: a cursor needs an open
 * transaction, which would hold a pooled connection for as long as the slowest client reads and
 * meet `idle_in_transaction_session_timeout`; between two pages nothing is held.
 *
 * The first page is read before this returns, so a database that cannot answer fails the request
 * as a problem; a later failure ends the stream with an error (the response is then cut short).
 */
export async function auditDownload(
  db: Queryable,
  filter: AuditLogFilter,
  line: (item: AuditLogItem) => string,
  head = '',
): Promise<Readable> {
  const throughId = await lastAuditLogId(db);
  const first = await readAuditLogAfter(db, DOWNLOAD_BATCH_SIZE, 0n, throughId, filter);
  async function* chunks(): AsyncGenerator<string> {
    let page = first;
    if (head !== '') yield head;
    while (page.length > 0) {
      yield page.map(line).join('');
      const last = page.at(-1)!;
      if (page.length < DOWNLOAD_BATCH_SIZE) return;
      page = await readAuditLogAfter(db, DOWNLOAD_BATCH_SIZE, BigInt(last.id), throughId, filter);
    }
  }
  // Bytes, not objects: the stream buffers up to its high-water mark in bytes, so at most about one
  // page waits in memory while the socket is full.
  return Readable.from(chunks(), { objectMode: false });
}
