import { getJson, send } from '../../lib/api';

export const CLI_ACCESS_FLAG = 'cli_access.enabled';

const FLAG_PATH = `/api/v1/platform/feature-flags/${CLI_ACCESS_FLAG}` as const;

/** Who set a value, when, why and until when (`null` fields: not known or not shown to this caller). */
export interface SwitchRecord {
  value: boolean;
  actor: string | null;
  /** What the actor is called, where the platform knows it (their last console sign-in). */
  actorName?: string;
  actorRole: string | null;
  setAt: string;
  reason: string | null;
  expiresAt: string | null;
}

export interface PlatformFlag {
  key: string;
  value: boolean;
  source: 'env' | 'cluster' | 'platform' | 'default';
  envPinned: boolean;
  platformRecord: SwitchRecord | null;
}

export async function loadPlatformCliAccess(signal: AbortSignal): Promise<PlatformFlag | undefined> {
  const { flags } = await getJson<{ flags: PlatformFlag[] }>('/api/v1/platform/feature-flags', signal);
  return flags.find((flag) => flag.key === CLI_ACCESS_FLAG);
}

/** `GET .../impact`: what switching the platform off reaches; `platformId` is used when the server names it. */
export interface Impact {
  clustersAffected: number;
  tunnelsOpen: number;
  platformId?: unknown;
}

export function loadImpact(signal: AbortSignal): Promise<Impact> {
  return getJson<Impact>(`${FLAG_PATH}/impact`, signal);
}

/** Switches CLI access off for the platform; `confirm` is the platform id as the user typed it. */
export async function switchPlatformOff(body: { reason: string; expiresAt?: string }, confirm: string): Promise<void> {
  await send('PUT', FLAG_PATH, { body: { value: false, ...body }, headers: { 'x-gsp-confirm': confirm } });
}

/** Clears the platform's value: every cluster without an override of its own follows the default again. */
export async function clearPlatformSwitch(): Promise<void> {
  await send('DELETE', FLAG_PATH);
}
