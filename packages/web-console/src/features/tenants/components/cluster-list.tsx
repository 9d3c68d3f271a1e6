import type { ReactNode } from 'react';
import { ErrorNotice, Loading } from '@gsp/ui';
import type { Loaded } from '@gsp/ui';
import type { Cluster } from '../api';

/**
 * A tenant's clusters under their heading, as loaded: a sentence while loading, the refusal, a
 * sentence when there is none, or each cluster as `render` shows it (a card to act on, or a read).
 */
export function ClusterList({
  org,
  clusters,
  render,
}: {
  org: string;
  clusters: Loaded<Cluster[]>;
  render: (cluster: Cluster) => ReactNode;
}) {
  return (
    <>
      <h3>Clusters</h3>
      {clusters.state === 'loading' && <Loading what={`the clusters of ${org}`} />}
      {clusters.state === 'error' && <ErrorNotice>{clusters.message}</ErrorNotice>}
      {clusters.state === 'done' &&
        (clusters.data.length === 0 ? (
          <p>No cluster is registered in this tenant yet.</p>
        ) : (
          <ul className="clusters">
            {clusters.data.map((cluster) => (
              <li key={cluster.id}>{render(cluster)}</li>
            ))}
          </ul>
        ))}
    </>
  );
}
