import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { formatTime } from '@gsp/ui';
import { serverHref } from '../../../lib/links';
import { formatAge, useNow } from '../../../lib/time';
import type { GameServer } from '../../../lib/types';

const COLUMNS = ['Name', 'Namespace', 'State', 'Address', 'Players', 'Profile', 'Age', 'Actions'];

let firstRowsMarked = false;

function address(gs: GameServer): string {
  if (gs.address === null) return '—';
  const port = gs.ports[0];
  return port === undefined ? gs.address : `${gs.address}:${port.port}`;
}

/** The state as text, with a class per state for its colour (never colour alone). */
function StateBadge({ state }: { state: string }) {
  return <span className={`state state-${state.toLowerCase()}`}>{state}</span>;
}

function Row({
  gs,
  now,
  deletion,
}: {
  gs: GameServer;
  now: number;
  deletion: (gs: GameServer) => { allowed: boolean; describedBy?: string; onDelete: () => void };
}) {
  const del = deletion(gs);
  return (
    <>
      <span role="cell" className="cell cell-name">
        <a href={serverHref(gs.namespace, gs.name)}>{gs.name}</a>
      </span>
      <span role="cell" className="cell cell-namespace">
        <span className="cell-label">Namespace </span>
        {gs.namespace}
      </span>
      <span role="cell" className="cell cell-state">
        <StateBadge state={gs.state} />
      </span>
      <span role="cell" className="cell cell-address code">
        {address(gs)}
      </span>
      <span role="cell" className="cell cell-players">
        <span className="cell-label">Players </span>
        {gs.players === null ? '—' : `${gs.players.count}/${gs.players.capacity}`}
      </span>
      <span role="cell" className="cell cell-profile">
        <span className="cell-label">Profile </span>
        {gs.profile ?? '—'}
      </span>
      <span role="cell" className="cell cell-age">
        <span className="cell-label">Age </span>
        <time dateTime={gs.createdAt} title={formatTime(gs.createdAt)}>
          {formatAge(gs.createdAt, now)}
        </time>
      </span>
      <span role="cell" className="cell cell-actions">
        <button
          type="button"
          className="button button-small button-danger"
          disabled={!del.allowed}
          aria-describedby={del.describedBy}
          aria-label={`Delete ${gs.namespace}/${gs.name}`}
          onClick={del.onDelete}
        >
          Delete
        </button>
      </span>
    </>
  );
}

/**
 * The game servers as an ARIA table whose rows are virtualised against the window's scroll: only
 * the rows near the viewport are in the DOM, so 1,000 servers stay smooth. Positions are set
 * through the CSSOM (React's style prop), which a CSP without 'unsafe-inline' allows.
 */
export function ServerTable({
  servers,
  total,
  deletion,
}: {
  servers: readonly GameServer[];
  total: number;
  deletion: (gs: GameServer) => { allowed: boolean; describedBy?: string; onDelete: () => void };
}) {
  const body = useRef<HTMLDivElement>(null);
  const [offset, setOffset] = useState(0);
  // Where the rows start in the page; what is above them (banners, an error sentence) may change it, so this
  // measures after every render, and sets the offset only when the rows moved (no chain of updates).
  // eslint-disable-next-line react-hooks/exhaustive-deps -- no dependency list on purpose: after every render
  useLayoutEffect(() => {
    const top = (body.current?.getBoundingClientRect().top ?? 0) + window.scrollY;
    if (Math.abs(top - offset) >= 1) setOffset(top);
  });
  const virtualizer = useWindowVirtualizer({
    count: servers.length,
    estimateSize: () => 45,
    overscan: 8,
    scrollMargin: offset,
    getItemKey: (i) => {
      const gs = servers[i];
      return gs === undefined ? i : `${gs.namespace}/${gs.name}`;
    },
  });
  const rows = virtualizer.getVirtualItems();
  const now = useNow();
  useEffect(() => {
    if (firstRowsMarked || rows.length === 0) return;
    firstRowsMarked = true;
    performance.mark('gsp:first-rows');
  }, [rows.length]);

  return (
    <>
      <div role="table" className="servers" aria-label="Game servers" aria-rowcount={servers.length + 1}>
        <div role="rowgroup" className="servers-head">
          <div role="row" className="row row-head" aria-rowindex={1}>
            {COLUMNS.map((c) => (
              <span role="columnheader" key={c} className={`cell cell-${c.toLowerCase()}`}>
                {c}
              </span>
            ))}
          </div>
        </div>
        <div role="rowgroup" ref={body} className="servers-body" style={{ height: virtualizer.getTotalSize() }}>
          {rows.map((v) => {
            const gs = servers[v.index];
            if (gs === undefined) return null;
            return (
              <div
                role="row"
                key={v.key}
                data-index={v.index}
                ref={virtualizer.measureElement}
                aria-rowindex={v.index + 2}
                className="row"
                style={{ transform: `translateY(${v.start - virtualizer.options.scrollMargin}px)` }}
              >
                <Row gs={gs} now={now} deletion={deletion} />
              </div>
            );
          })}
        </div>
      </div>
      {servers.length === 0 && (
        <p className="notice servers-empty">
          {total === 0 ? 'No game servers yet.' : 'No game server matches the filters.'}
        </p>
      )}
    </>
  );
}
