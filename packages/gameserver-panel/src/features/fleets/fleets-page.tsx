import { ErrorNotice, Facts, Loading, Panel } from '@gsp/ui';
import { can, whyNot } from '../../lib/session';
import type { PanelSession } from '../../lib/session';
import type { Fleet } from './api';
import { ScaleForm } from './scale-form';
import { FLEETS_POLL_MS, usePolledFleets } from './use-fleets';
import './fleets.css';

function FleetCard({ session, fleet, onScaled }: { session: PanelSession; fleet: Fleet; onScaled: () => void }) {
  const mayScale = can(session, 'fleets', 'update', fleet.namespace);
  return (
    <li className="card fleet" aria-labelledby={`fleet-${fleet.namespace}-${fleet.name}`}>
      <h3 id={`fleet-${fleet.namespace}-${fleet.name}`}>
        {fleet.name} <span className="fleet-namespace">in {fleet.namespace}</span>
      </h3>
      <Facts
        items={[
          ['Desired', fleet.replicas],
          ['Ready', fleet.readyReplicas],
          ['Allocated', fleet.allocatedReplicas],
          ['Reserved', fleet.reservedReplicas],
          ['Profile', fleet.profile ?? 'None'],
        ]}
      />
      <ScaleForm
        fleet={fleet}
        {...(mayScale ? {} : { why: whyNot(session, 'fleets', 'update', fleet.namespace) })}
        onScaled={onScaled}
      />
    </li>
  );
}

/** `#/fleets`: every fleet the role may list, its replicas kept current, and a form to scale each. */
export function FleetsPage({ session }: { session: PanelSession }) {
  const { fleets, problem, refresh } = usePolledFleets();
  return (
    <Panel title="Fleets">
      <div className="fleets-toolbar">
        <div className="fleets-live" role="status">
          {problem === undefined && <p>Counts are checked every {FLEETS_POLL_MS / 1000} s.</p>}
          {problem !== undefined && fleets !== undefined && (
            <p className="notice notice-warning">
              Updates paused: {problem} Trying again every {FLEETS_POLL_MS / 1000} s.
            </p>
          )}
        </div>
        <button type="button" className="button button-secondary" onClick={refresh}>
          Refresh
        </button>
      </div>
      <p className="fleet-intro">
        A fleet keeps its desired number of game servers running; ready and allocated counts are as the control plane
        last saw them.
      </p>
      {fleets === undefined && problem === undefined && <Loading what="fleets" />}
      {fleets === undefined && problem !== undefined && <ErrorNotice>{problem}</ErrorNotice>}
      {fleets !== undefined && fleets.length === 0 && <p>There are no fleets you may see.</p>}
      {fleets !== undefined && fleets.length > 0 && (
        <ul className="card-grid fleets">
          {fleets.map((fleet) => (
            <FleetCard key={`${fleet.namespace}/${fleet.name}`} session={session} fleet={fleet} onScaled={refresh} />
          ))}
        </ul>
      )}
    </Panel>
  );
}
