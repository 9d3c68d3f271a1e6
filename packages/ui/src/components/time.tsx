import { formatTime, formatUtc } from '../lib/format';

/**
 * An instant as the reader's own zone says it (`formatTime`), with UTC on hover (`title`) and the
 * RFC 3339 instant for machines (`dateTime`): the one way both products show a date.
 */
export function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatUtc(iso)}>
      {formatTime(iso)}
    </time>
  );
}
