import { Panel } from '@gsp/ui';
import type { PanelSession } from '../../lib/session';

/** The game servers, live. */
export function ServersPage({ session }: { session: PanelSession }) {
  return (
    <Panel title="Game servers">
      <p>Signed in as {session.username}.</p>
    </Panel>
  );
}
