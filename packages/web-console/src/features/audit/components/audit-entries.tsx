import { formatTime, Time } from '@gsp/ui';
import { ACTIONS } from '../actions';
import type { AuditItem } from '../api';

function text(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
}

/** What changed, in a line: the flag's value and reason, the member and role. */
function summary(item: AuditItem): string {
  const d = new Map(Object.entries(item.details));
  const parts: string[] = [];
  const flag = text(d.get('flag'));
  if (flag !== undefined) {
    const value = d.get('value');
    parts.push(value === null ? `${flag} cleared` : `${flag} = ${text(value) ?? '?'}`);
  }
  const subject = text(d.get('subject'));
  if (subject !== undefined) parts.push(`member ${subject}${d.has('role') ? ` as ${text(d.get('role')) ?? '?'}` : ''}`);
  const reason = text(d.get('reason'));
  if (reason !== undefined) parts.push(`“${reason}”`);
  const expiresAt = text(d.get('expiresAt'));
  if (expiresAt !== undefined) parts.push(`until ${formatTime(expiresAt)}`);
  if (d.get('cause') === 'expiry') parts.push('(its expiry passed)');
  return parts.join(', ');
}

/** The audit's entries, newest first, or a sentence when there are none (`filtered`: for the filter applied). */
export function AuditEntries({ items, filtered }: { items: AuditItem[]; filtered: boolean }) {
  if (items.length === 0) return <p>No entries{filtered ? ' match this filter' : ''}.</p>;
  return (
    <ol className="audit" aria-label="Audit entries, newest first">
      {items.map((item) => (
        <li key={item.id} className="audit-entry">
          <span className="audit-when">
            <Time iso={item.createdAt} />
          </span>
          <span className="audit-action">{ACTIONS.get(item.action) ?? item.action}</span>
          <span className="audit-who">
            by <span className="code">{item.actor}</span> on <span className="code">{item.resource}</span>
          </span>
          {summary(item) !== '' && <span className="audit-what">{summary(item)}</span>}
        </li>
      ))}
    </ol>
  );
}
