import { useCallback } from 'react';
import { ErrorNotice, Loading, Panel, useLoad } from '@gsp/ui';
import type { PanelSession } from '../../lib/session';
import { useNow } from '../../lib/time';
import { getProfile } from './api';
import { whySnapshotCannot } from './can-run';
import type { ProfileState } from './can-run';
import { ServerActions } from './server-actions';
import { ServerTerminal } from './server-terminal';
import { ServerFacts } from './server-facts';
import { ServerLogs } from './server-logs';
import { ServerSnapshots } from './server-snapshots';
import { useServer } from './use-server';
import type { LiveServer } from './use-server';
import './server.css';

/** The server's profile, for its actions and storage: none when it was created otherwise. */
function useProfile(name: string | null): ProfileState {
  const load = useCallback(
    async (signal: AbortSignal) => (name === null ? undefined : getProfile(name, signal)),
    [name],
  );
  const loaded = useLoad(load);
  if (name === null) return { state: 'none' };
  if (loaded.state === 'error') return loaded;
  // A reload keeps the last answer until the next: until then, the profile is not known.
  if (loaded.state === 'done' && loaded.data?.name === name) return { state: 'done', profile: loaded.data };
  return { state: 'loading' };
}

/** Why no snapshot can be taken now, as far as the page can tell; undefined when one can. */
function whyNoSnapshot(live: LiveServer, profile: ProfileState): string | undefined {
  if (live.state === 'done') return whySnapshotCannot(live.server, profile);
  if (live.state === 'loading') return 'Reading the game server…';
  if (live.state === 'gone') return 'The game server does not exist any more.';
  return live.message;
}

/** One game server: what it is now (live), its actions, console, logs and snapshots. */
export function ServerPage({ session, namespace, name }: { session: PanelSession; namespace: string; name: string }) {
  const live = useServer({ namespace, name });
  const server = live.state === 'done' ? live.server : undefined;
  const profile = useProfile(server?.profile ?? null);
  const now = useNow();
  const ref = { namespace, name };
  return (
    <div className="server-page">
      <p className="back">
        <a href="#/servers">All game servers</a>
      </p>
      <Panel title={`Game server ${namespace}/${name}`}>
        {live.state === 'loading' && <Loading what="the game server" />}
        {live.state === 'error' && <ErrorNotice>{live.message}</ErrorNotice>}
        {live.state === 'gone' && (
          <ErrorNotice>
            Game server {namespace}/{name} does not exist (any more): it was deleted or shut down.
          </ErrorNotice>
        )}
        {server !== undefined && <ServerFacts server={server} now={now} />}
        {profile.state === 'error' && (
          <p className="hint">Its profile&apos;s own actions are not shown: {profile.message}</p>
        )}
      </Panel>
      {server !== undefined && <ServerActions session={session} server={server} profile={profile} />}
      <ServerTerminal session={session} server={ref} />
      <ServerLogs session={session} server={ref} />
      <ServerSnapshots session={session} server={ref} takeWhy={whyNoSnapshot(live, profile)} />
    </div>
  );
}
