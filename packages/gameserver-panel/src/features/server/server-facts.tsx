import { Facts, formatTime } from '@gsp/ui';
import { formatAge } from '../../lib/time';
import type { GameServerView } from './types';

function Ports({ server }: { server: GameServerView }) {
  if (server.ports.length === 0) return <>none yet</>;
  return (
    <ul className="plain-list">
      {server.ports.map((p) => (
        <li key={p.name}>
          {p.name}: <code>{p.port}</code>/{p.protocol}
        </li>
      ))}
    </ul>
  );
}

function Labels({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels);
  if (entries.length === 0) return <>none</>;
  return (
    <ul className="plain-list labels">
      {entries.map(([key, value]) => (
        <li key={key}>
          <code>
            {key}={value}
          </code>
        </li>
      ))}
    </ul>
  );
}

/** What the game server is now: state, where players connect, who is on it, where it came from. */
export function ServerFacts({ server, now }: { server: GameServerView; now: number }) {
  const players = server.players;
  return (
    <Facts
      items={[
        [
          'State',
          <strong key="state" className={`state state-${server.state.toLowerCase()}`} data-testid="server-state">
            {server.state}
          </strong>,
        ],
        ['Address', server.address === null ? 'not scheduled yet' : <code key="address">{server.address}</code>],
        ['Ports', <Ports key="ports" server={server} />],
        ['Players', players === null ? 'not tracked' : `${players.count} of ${players.capacity}`],
        ['Profile', server.profile ?? 'none (not created from a profile)'],
        ['Labels', <Labels key="labels" labels={server.labels} />],
        [
          'Age',
          <time key="age" dateTime={server.createdAt} title={formatTime(server.createdAt)}>
            {formatAge(server.createdAt, now)}
          </time>,
        ],
      ]}
    />
  );
}
