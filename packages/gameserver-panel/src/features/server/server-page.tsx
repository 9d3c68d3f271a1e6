import { useCallback, useEffect, useState } from 'react';
import { ErrorNotice, Loading, Panel, useLoad } from '@gsp/ui';
import type { PanelSession } from '../../lib/session';
import { getProfile } from './api';
import { ServerActions } from './server-actions';
import { ServerConsole } from './server-console';
import { ServerFacts } from './server-facts';
import { ServerLogs } from './server-logs';
import { ServerSnapshots } from './server-snapshots';
import type { ProfileSummary } from './types';
import { useServer } from './use-server';
import './server.css';

/** The clock the age is shown against, ticking every 30 s. */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** The server's profile, for its actions and storage; none when it has none or it cannot be read. */
function useProfile(name: string | null): { profile: ProfileSummary | undefined; problem: string | undefined } {
  const load = useCallback(
    async (signal: AbortSignal) => (name === null ? undefined : getProfile(name, signal)),
    [name],
  );
  const loaded = useLoad(load);
  if (loaded.state === 'done') return { profile: loaded.data, problem: undefined };
  return { profile: undefined, problem: loaded.state === 'error' ? loaded.message : undefined };
}

/** One game server: what it is now (live), its actions, console, logs and snapshots. */
export function ServerPage({ session, namespace, name }: { session: PanelSession; namespace: string; name: string }) {
  const live = useServer({ namespace, name });
  const server = live.state === 'done' ? live.server : undefined;
  const { profile, problem } = useProfile(server?.profile ?? null);
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
        {problem !== undefined && <p className="hint">Its profile&apos;s own actions are not shown: {problem}</p>}
      </Panel>
      {server !== undefined && <ServerActions session={session} server={server} profile={profile} />}
      <ServerConsole session={session} server={ref} />
      <ServerLogs session={session} server={ref} />
      <ServerSnapshots session={session} server={ref} />
    </div>
  );
}
