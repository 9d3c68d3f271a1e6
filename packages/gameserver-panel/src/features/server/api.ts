import { getJson, send } from '../../lib/api';
import type { JsonAnswer, paths } from '../../lib/api';
import type { ActionAnswer, GameServerView, ProfileSummary, SnapshotTaken, SnapshotView } from './types';

/** One game server, as `ns/name` in URLs. */
export interface ServerRef {
  namespace: string;
  name: string;
}

const enc = encodeURIComponent;
export const serverPath = ({ namespace, name }: ServerRef): `/api/v1/gameservers/${string}` =>
  `/api/v1/gameservers/${enc(namespace)}/${enc(name)}`;

export const getServer = (ref: ServerRef, signal?: AbortSignal) => getJson<GameServerView>(serverPath(ref), signal);

export const getProfile = (name: string, signal?: AbortSignal) =>
  getJson<ProfileSummary>(`/api/v1/profiles/${enc(name)}`, signal);

export async function runAction(ref: ServerRef, action: string, args: string[]): Promise<ActionAnswer> {
  const answer = await send<ActionAnswer>('POST', `${serverPath(ref)}/actions/${enc(action)}`, { body: { args } });
  if (answer === undefined) throw new Error(`action ${action} answered nothing`);
  return answer;
}

export async function consoleTicket(ref: ServerRef): Promise<string> {
  type Ticket = JsonAnswer<paths['/api/v1/gameservers/{namespace}/{name}/console/tickets']['post']>;
  const answer = await send<Ticket>('POST', `${serverPath(ref)}/console/tickets`);
  if (answer === undefined) throw new Error('the ticket route answered nothing');
  return answer.ticket;
}

export const listSnapshots = (ref: ServerRef, signal?: AbortSignal) =>
  getJson<SnapshotView[]>(`${serverPath(ref)}/snapshots`, signal);

export async function takeSnapshot(ref: ServerRef, name?: string): Promise<SnapshotTaken> {
  const body = name === undefined || name === '' ? {} : { name };
  const answer = await send<SnapshotTaken>('POST', `${serverPath(ref)}/snapshots`, { body });
  if (answer === undefined) throw new Error('the snapshot route answered nothing');
  return answer;
}

export const deleteSnapshot = (snapshot: SnapshotView) =>
  send('DELETE', `/api/v1/snapshots/${enc(snapshot.namespace)}/${enc(snapshot.name)}`);

/** A new game server whose storage starts from `snapshot` (its profile's, in its namespace). */
export async function restoreSnapshot(snapshot: SnapshotView, name: string, profile: string): Promise<GameServerView> {
  const body = { profile, name, fromSnapshot: snapshot.name };
  const answer = await send<GameServerView>('POST', `/api/v1/gameservers/${enc(snapshot.namespace)}`, { body });
  if (answer === undefined) throw new Error('the create route answered nothing');
  return answer;
}
