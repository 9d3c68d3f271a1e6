import type { AuditLogItem } from './store.js';

/** What an audit read answers: JSON pages, or every matching entry as one download. */
export type AuditFormat = 'json' | 'ndjson' | 'csv';

/** Each format's media type, in the order a tie in `Accept` is broken. */
export const MEDIA_TYPES: ReadonlyMap<AuditFormat, string> = new Map([
  ['json', 'application/json'],
  ['ndjson', 'application/x-ndjson'],
  ['csv', 'text/csv'],
]);

/** How well one media range of `Accept` matches a type: -1 not at all, else more for a more specific range. */
function specificity(range: string, mediaType: string): number {
  if (range === mediaType) return 2;
  if (range === '*/*') return 0;
  if (range.endsWith('/*') && mediaType.startsWith(range.slice(0, -1))) return 1;
  return -1;
}

/** The `q` of `mediaType` in an `Accept` header (RFC 9110 §12.5.1): that of its most specific matching range. */
function quality(accept: string, mediaType: string): number {
  let best = -1;
  let q = 0;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const level = specificity(range, mediaType);
    if (level <= best) continue;
    best = level;
    const weight = params.find((p) => p.startsWith('q='));
    const value = weight === undefined ? 1 : Number(weight.slice(2));
    q = Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0;
  }
  return best < 0 ? 0 : q;
}

/**
 * The format a read asked for: `?format=` when given (it wins, as the explicit choice), else the
 * best of `Accept`; JSON without either. `undefined`: `Accept` refuses all three (a 406).
 */
export function negotiateFormat(format: AuditFormat | undefined, accept: string | undefined): AuditFormat | undefined {
  if (format !== undefined) return format;
  if (accept === undefined || accept.trim() === '') return 'json';
  let chosen: AuditFormat | undefined;
  let chosenQ = 0;
  for (const [name, mediaType] of MEDIA_TYPES) {
    const q = quality(accept, mediaType);
    if (q > chosenQ) [chosen, chosenQ] = [name, q];
  }
  return chosen;
}

/** The columns of a CSV download, in order; `details` as its JSON. */
export const CSV_COLUMNS = ['id', 'createdAt', 'action', 'actor', 'resource', 'requestId', 'details'] as const;

// A spreadsheet runs a cell that begins with one of these as a formula (OWASP's CSV injection);
// a leading ' is escaped too, so that removing one leading ' from any cell gives the value back.
const FORMULA_START = /^[=+\-@\t\r']/;

/** One CSV cell (RFC 4180): quoted when it holds a quote, comma or line break, and never read as a formula. */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV record with its CRLF. */
export const csvRecord = (cells: readonly string[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** An entry as a CSV record, in the order of `CSV_COLUMNS`. */
export const csvLine = (item: AuditLogItem): string =>
  csvRecord([
    item.id,
    item.createdAt,
    item.action,
    item.actor,
    item.resource,
    item.requestId ?? '',
    JSON.stringify(item.details),
  ]);

/** An entry as one NDJSON line: the object a JSON page holds. */
export const ndjsonLine = (item: AuditLogItem): string => `${JSON.stringify(item)}\n`;
