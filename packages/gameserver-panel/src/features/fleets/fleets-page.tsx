import { useState } from 'react';
import { ErrorNotice, Facts, Loading, Panel, useLoad } from '@gsp/ui';
import { can, whyNot } from '../../lib/session';
import type { PanelSession } from '../../lib/session';
import { listFleets } from './api';
import type { Fleet } from './api';
import { ScaleForm } from './scale-form';
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

/** `#/fleets`: every fleet the role may list, its replicas, and a form to scale each. */
export function FleetsPage({ session }: { session: PanelSession }) {
  const [version, setVersion] = useState(0);
  const fleets = useLoad(listFleets, version);
  const reload = () => setVersion((v) => v + 1);
  return (
    <Panel title="Fleets">
      <p className="fleet-intro">
        A fleet keeps its desired number of game servers running; ready and allocated counts are as the control plane
        last saw them.{' '}
        <button type="button" className="button button-secondary" onClick={reload}>
          Refresh
        </button>
      </p>
      {fleets.state === 'loading' && <Loading what="fleets" />}
      {fleets.state === 'error' && <ErrorNotice>{fleets.message}</ErrorNotice>}
      {fleets.state === 'done' && fleets.data.length === 0 && <p>There are no fleets you may see.</p>}
      {fleets.state === 'done' && fleets.data.length > 0 && (
        <ul className="card-grid fleets">
          {fleets.data.map((fleet) => (
            <FleetCard key={`${fleet.namespace}/${fleet.name}`} session={session} fleet={fleet} onScaled={reload} />
          ))}
        </ul>
      )}
    </Panel>
  );
}
