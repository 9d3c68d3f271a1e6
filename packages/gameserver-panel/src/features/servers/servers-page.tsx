import { useCallback, useId, useMemo, useState } from 'react';
import { Panel } from '@gsp/ui';
import { can, namespacesFor, whyNot } from '../../lib/session';
import type { PanelSession } from '../../lib/session';
import { serverKey } from '../../lib/types';
import type { GameServer } from '../../lib/types';
import { CreateDialog } from './components/create-dialog';
import { DeleteDialog } from './components/delete-dialog';
import { Filters } from './components/filters';
import type { FilterValues } from './components/filters';
import { ServerTable } from './components/server-table';
import { useServerFeed } from './hooks/use-server-feed';
import { matchesLabels, parseLabelFilter } from './label-filter';
import './servers.css';

const byNamespaceThenName = (a: GameServer, b: GameServer) =>
  a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);

/** The namespaces to choose from: those of the servers seen, and those the role names for listing. */
function knownNamespaces(session: PanelSession, servers: Iterable<GameServer>): string[] {
  const found = new Set<string>();
  for (const gs of servers) found.add(gs.namespace);
  const listable = namespacesFor(session, 'gameservers', 'list');
  if (listable !== '*') for (const ns of listable) found.add(ns);
  return [...found].sort();
}

function useVisible(feed: ReturnType<typeof useServerFeed>, filters: FilterValues) {
  const labels = useMemo(() => parseLabelFilter(filters.labels), [filters.labels]);
  const { servers, version } = feed;
  const visible = useMemo(() => {
    const terms = labels.ok ? labels.terms : [];
    const shown: GameServer[] = [];
    for (const gs of servers.values()) {
      if (filters.namespace !== '' && gs.namespace !== filters.namespace) continue;
      if (filters.state !== '' && gs.state !== filters.state) continue;
      if (!matchesLabels(gs.labels, terms)) continue;
      shown.push(gs);
    }
    return shown.sort(byNamespaceThenName);
    // `version` grows whenever the feed changed the map in place: the map itself stays the same object.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `version` stands for the map's contents
  }, [servers, version, filters.namespace, filters.state, labels]);
  return { visible, labelError: labels.ok ? undefined : labels.error };
}

/** Create, and the sentences disabled controls point at: why not create, why not delete (`undeletable`'s namespace). */
function Toolbar({
  session,
  createWhyId,
  deleteWhyId,
  undeletable,
  onCreate,
}: {
  session: PanelSession;
  createWhyId: string;
  deleteWhyId: string;
  undeletable: GameServer | undefined;
  onCreate: () => void;
}) {
  const mayCreate = can(session, 'gameservers', 'create');
  return (
    <div className="servers-toolbar">
      <div className="servers-create">
        <button
          type="button"
          className="button"
          disabled={!mayCreate}
          aria-describedby={mayCreate ? undefined : createWhyId}
          onClick={onCreate}
        >
          Create a game server
        </button>
        {!mayCreate && (
          <p id={createWhyId} className="why">
            {whyNot(session, 'gameservers', 'create')}
          </p>
        )}
      </div>
      {undeletable !== undefined && (
        <p id={deleteWhyId} className="why">
          {whyNot(session, 'gameservers', 'delete', undeletable.namespace)}
        </p>
      )}
    </div>
  );
}

/** The game servers the role may list, live: filters, create from a profile, delete with a confirmation. */
export function ServersPage({ session }: { session: PanelSession }) {
  const id = useId();
  const feed = useServerFeed();
  const [filters, setFilters] = useState<FilterValues>({ namespace: '', state: '', labels: '' });
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<string | undefined>();
  const [said, setSaid] = useState('');
  const { visible, labelError } = useVisible(feed, filters);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- `feed.version` stands for the map's contents
  const namespaces = useMemo(() => knownNamespaces(session, feed.servers.values()), [session, feed.version]);
  const createIn = namespacesFor(session, 'gameservers', 'create');
  // The sentence for disabled Delete buttons: the first shown server the role may not delete.
  const undeletable = visible.find((gs) => !can(session, 'gameservers', 'delete', gs.namespace));
  const deletion = useCallback(
    (gs: GameServer) => {
      const allowed = can(session, 'gameservers', 'delete', gs.namespace);
      return {
        allowed,
        describedBy: allowed ? undefined : `${id}-why-delete`,
        onDelete: () => setDeleting(serverKey(gs)),
      };
    },
    [session, id],
  );
  const target = deleting === undefined ? undefined : feed.servers.get(deleting);
  const firstNamespace = createIn === '*' ? filters.namespace || namespaces[0] || 'default' : (createIn[0] ?? '');

  return (
    <Panel title="Game servers">
      <Toolbar
        session={session}
        createWhyId={`${id}-why-create`}
        deleteWhyId={`${id}-why-delete`}
        undeletable={undeletable}
        onCreate={() => setCreating(true)}
      />
      <Filters values={filters} namespaces={namespaces} labelError={labelError} onChange={setFilters} />
      <div role="status" className="live-status" data-live={feed.status}>
        {feed.status === 'paused' && <p className="notice notice-warning">Live updates paused, reconnecting…</p>}
        {said !== '' && <p className="notice">{said}</p>}
      </div>
      {!feed.loaded ? (
        <p className="notice">Loading the game servers…</p>
      ) : (
        <>
          <p className="servers-count">
            Showing {visible.length.toLocaleString('en')} of {feed.servers.size.toLocaleString('en')} game servers.
          </p>
          <ServerTable servers={visible} total={feed.servers.size} deletion={deletion} />
        </>
      )}
      {creating && (
        <CreateDialog
          namespaces={createIn}
          known={namespaces}
          initialNamespace={firstNamespace}
          onClose={() => setCreating(false)}
          onCreated={(gs) => {
            setCreating(false);
            setSaid(
              `Created ${gs === undefined ? 'it' : `${gs.namespace}/${gs.name}`}; it appears in the list as it starts.`,
            );
          }}
        />
      )}
      {target !== undefined && (
        <DeleteDialog
          server={target}
          onClose={() => setDeleting(undefined)}
          onDeleted={() => {
            setDeleting(undefined);
            setSaid(`Deleting ${target.namespace}/${target.name}; it leaves the list once Agones has removed it.`);
          }}
        />
      )}
    </Panel>
  );
}
