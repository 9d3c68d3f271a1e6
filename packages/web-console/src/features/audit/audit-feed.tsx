import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { ErrorNotice, Loading } from '../../components/notice';
import { Panel } from '../../components/panel';
import { ApiError } from '../../lib/api';
import { formatTime } from '../../lib/format';
import { loadAuditPage } from './api';
import type { AuditFilter, AuditItem } from './api';
import './audit.css';

/** The actions the API server records, in words; the filter offers these. */
const ACTIONS = new Map([
  ['featureflags.set', 'Flag set'],
  ['featureflags.cleared', 'Flag cleared'],
  ['clusters.registered', 'Cluster registered'],
  ['clusters.deleted', 'Cluster deleted'],
  ['clusters.agent_token.rotated', 'Agent token replaced'],
  ['tenants.members.set', 'Member added or changed'],
  ['tenants.members.removed', 'Member removed'],
]);

const NO_FILTER: AuditFilter = { action: '', actor: '' };

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

function failure(err: unknown): string {
  return err instanceof ApiError ? err.message : 'Something went wrong in the console; reload the page to try again.';
}

type Feed =
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'done'; items: AuditItem[]; next: string | null };

/**
 * The platform's audit (platform admins), newest first: filtered by action and actor, paged with
 * the API's cursor ("Show older entries"). Live updates (`version`) reload the first page.
 */
export function AuditFeed({ version }: { version: number }) {
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const [draft, setDraft] = useState<AuditFilter>(NO_FILTER);
  const [feed, setFeed] = useState<Feed>({ state: 'loading' });
  const [more, setMore] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const ids = useId();

  useEffect(() => {
    const abort = new AbortController();
    loadAuditPage(filter, null, abort.signal).then(
      (page) => {
        if (!abort.signal.aborted) setFeed({ state: 'done', items: page.items, next: page.nextCursor });
      },
      (err: unknown) => {
        if (!abort.signal.aborted) setFeed({ state: 'error', message: failure(err) });
      },
    );
    return () => abort.abort();
  }, [filter, version]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setMore({ busy: false });
    setFilter({ action: draft.action, actor: draft.actor.trim() });
  };

  const showOlder = async () => {
    if (feed.state !== 'done' || feed.next === null) return;
    setMore({ busy: true });
    try {
      const page = await loadAuditPage(filter, feed.next);
      setFeed({ state: 'done', items: [...feed.items, ...page.items], next: page.nextCursor });
      setMore({ busy: false });
    } catch (err) {
      setMore({ busy: false, error: failure(err) });
    }
  };

  return (
    <Panel title="Audit">
      <form className="form audit-filter" onSubmit={apply} aria-label="Filter the audit">
        <div className="audit-field">
          <label htmlFor={`${ids}-action`}>Action</label>
          <select
            id={`${ids}-action`}
            value={draft.action}
            onChange={(e) => setDraft((d) => ({ ...d, action: e.target.value }))}
          >
            <option value="">All actions</option>
            {[...ACTIONS].map(([action, label]) => (
              <option key={action} value={action}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="audit-field">
          <label htmlFor={`${ids}-actor`}>Actor (exactly as shown)</label>
          <input
            id={`${ids}-actor`}
            value={draft.actor}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => setDraft((d) => ({ ...d, actor: e.target.value }))}
          />
        </div>
        <button type="submit" className="button">
          Filter
        </button>
      </form>
      {feed.state === 'loading' && <Loading what="the audit" />}
      {feed.state === 'error' && <ErrorNotice>{feed.message}</ErrorNotice>}
      {feed.state === 'done' &&
        (feed.items.length === 0 ? (
          <p>No entries{filter === NO_FILTER ? '' : ' match this filter'}.</p>
        ) : (
          <ol className="audit" aria-label="Audit entries, newest first">
            {feed.items.map((item) => (
              <li key={item.id} className="audit-entry">
                <span className="audit-when">{formatTime(item.createdAt)}</span>
                <span className="audit-action">{ACTIONS.get(item.action) ?? item.action}</span>
                <span className="audit-who">
                  by <span className="code">{item.actor}</span> on <span className="code">{item.resource}</span>
                </span>
                {summary(item) !== '' && <span className="audit-what">{summary(item)}</span>}
              </li>
            ))}
          </ol>
        ))}
      {feed.state === 'done' && feed.next !== null && (
        <div className="actions">
          <button
            type="button"
            className="button button-secondary"
            disabled={more.busy}
            onClick={() => void showOlder()}
          >
            Show older entries
          </button>
        </div>
      )}
      {more.error !== undefined && <ErrorNotice>{more.error}</ErrorNotice>}
    </Panel>
  );
}
