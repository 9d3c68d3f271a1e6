import { getJson } from '../../lib/api';

export const CLI_ACCESS_FLAG = 'cli_access.enabled';

/** Who set a value, when, why and until when (`null` fields: not known or not shown to this caller). */
export interface SwitchRecord {
  value: boolean;
  actor: string | null;
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
