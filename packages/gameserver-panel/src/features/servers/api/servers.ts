import { getJson, send } from '../../../lib/api';
import type { JsonAnswer, paths } from '../../../lib/api';
import type { GameServer } from '../../../lib/types';

/** What the create dialog needs of a profile (`GET /api/v1/profiles`). */
export type ProfileChoice = Pick<JsonAnswer<paths['/api/v1/profiles']['get']>[number], 'name' | 'description'>;

export function loadProfiles(signal: AbortSignal): Promise<ProfileChoice[]> {
  return getJson<ProfileChoice[]>('/api/v1/profiles', signal);
}

const segment = encodeURIComponent;

/** `POST /api/v1/gameservers/{ns}`: creates a game server from a profile (name: the server picks one). */
export async function createServer(namespace: string, profile: string, name?: string): Promise<GameServer | undefined> {
  const body = name === undefined ? { profile } : { profile, name };
  return send<GameServer>('POST', `/api/v1/gameservers/${segment(namespace)}`, { body });
}

/** `DELETE /api/v1/gameservers/{ns}/{name}`; `force` is needed for an Allocated server (players are on it). */
export async function deleteServer(namespace: string, name: string, force: boolean): Promise<void> {
  const query = force ? '?force=true' : '';
  await send('DELETE', `/api/v1/gameservers/${segment(namespace)}/${segment(name)}${query}`);
}
