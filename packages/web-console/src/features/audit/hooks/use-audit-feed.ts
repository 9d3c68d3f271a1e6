import { useEffect, useState } from 'react';
import { ApiError } from '../../../lib/api';
import { loadAuditPage } from '../api';
import type { AuditFilter, AuditItem } from '../api';

/** The filter before any is applied; once one is (even empty), "no entries" says "match this filter". */
export const NO_FILTER: AuditFilter = { action: '', actor: '' };

export type Feed =
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'done'; items: AuditItem[]; next: string | null };

function failure(err: unknown): string {
  return err instanceof ApiError ? err.message : 'Something went wrong in the console; reload the page to try again.';
}

/**
 * The audit's first page for `filter`, loaded again whenever the filter or `version` (live updates)
 * changes, and `showOlder` to append the next page; `more` tells how that went.
 */
export function useAuditFeed(version: number) {
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const [feed, setFeed] = useState<Feed>({ state: 'loading' });
  const [more, setMore] = useState<{ busy: boolean; error?: string }>({ busy: false });

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

  const applyFilter = (wanted: AuditFilter) => {
    setMore({ busy: false });
    setFilter(wanted);
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

  return { filter, applyFilter, feed, more, showOlder };
}
