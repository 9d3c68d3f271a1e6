import { getJson, send } from '../../lib/api';
import type { components, JsonAnswer, JsonBody, paths } from '../../lib/api';

export const CLI_ACCESS_FLAG = 'cli_access.enabled';

const FLAG_PATH = `/api/v1/platform/feature-flags/${CLI_ACCESS_FLAG}` as const;

/** A flag's effective value at the platform, with the record that decided it. */
export type PlatformFlag = components['schemas']['FlagState'];
type FlagList = JsonAnswer<paths['/api/v1/platform/feature-flags']['get']>;
type SwitchBody = JsonBody<paths['/api/v1/platform/feature-flags/{flag}']['put']>;

export async function loadPlatformCliAccess(signal: AbortSignal): Promise<PlatformFlag | undefined> {
  const { flags } = await getJson<FlagList>('/api/v1/platform/feature-flags', signal);
  return flags.find((flag) => flag.key === CLI_ACCESS_FLAG);
}

/** `GET .../impact`: what switching the platform off reaches, and the platform id the confirmation must name. */
export type Impact = JsonAnswer<paths['/api/v1/platform/feature-flags/{flag}/impact']['get']>;

export function loadImpact(signal: AbortSignal): Promise<Impact> {
  return getJson<Impact>(`${FLAG_PATH}/impact`, signal);
}

/** Switches CLI access off for the platform; `confirm` is the platform id as the user typed it. */
export async function switchPlatformOff(body: Omit<SwitchBody, 'value'>, confirm: string): Promise<void> {
  await send('PUT', FLAG_PATH, { body: { value: false, ...body }, headers: { 'x-gsp-confirm': confirm } });
}

/** Clears the platform's value: every cluster without an override of its own follows the default again. */
export async function clearPlatformSwitch(): Promise<void> {
  await send('DELETE', FLAG_PATH);
}
