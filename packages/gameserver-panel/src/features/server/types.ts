/** The control plane's answers this page reads (gameservers, snapshots, profiles), from its generated types. */
import type { components, JsonAnswer, paths } from '../../lib/api';

type Server = '/api/v1/gameservers/{namespace}/{name}';

export type GameServerView = components['schemas']['GameServer'];

/** What `POST .../actions/{action}` answers: the new state, or what the command did. */
export type ActionAnswer = JsonAnswer<paths[`${Server}/actions/{action}`]['post']>;

/** `GET /api/v1/profiles/{name}`, the parts this page reads. */
export type ProfileSummary = Pick<
  JsonAnswer<paths['/api/v1/profiles/{name}']['get']>,
  'name' | 'actions' | 'restartCommand' | 'storage' | 'snapshot'
>;

export type SnapshotView = components['schemas']['Snapshot'];
/** What `POST .../snapshots` answers: the snapshot as asked for and its hooks' runs. */
export type SnapshotTaken = JsonAnswer<paths[`${Server}/snapshots`]['post']>;
export type HookRun = NonNullable<SnapshotTaken['hooks']['preCommand']>;

/** The console's WebSocket messages from the server (services/control-plane/src/terminal/protocol.ts). */
export type ConsoleMessage =
  { type: 'output'; data: string } | { type: 'state'; state: string } | { type: 'closed'; reason: string };
