import { ErrorNotice, Loading, Panel } from '@gsp/ui';
import { AuditEntries } from './components/audit-entries';
import { AuditFilterForm } from './components/audit-filter-form';
import { NO_FILTER, useAuditFeed } from './hooks/use-audit-feed';
import './audit.css';

/**
 * The platform's audit (platform admins), newest first: filtered by action and actor, paged with
 * the API's cursor ("Show older entries"). Live updates (`version`) reload the first page.
 */
export function AuditFeed({ version }: { version: number }) {
  const { filter, applyFilter, feed, more, showOlder } = useAuditFeed(version);
  return (
    <Panel title="Audit">
      <AuditFilterForm onApply={applyFilter} />
      {feed.state === 'loading' && <Loading what="the audit" />}
      {feed.state === 'error' && <ErrorNotice>{feed.message}</ErrorNotice>}
      {feed.state === 'done' && <AuditEntries items={feed.items} filtered={filter !== NO_FILTER} />}
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
