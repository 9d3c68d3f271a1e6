import type { Api } from '../api/api.js';

/** The line a pod's console starts with: its GameServer's state and ports, or its phase. */
export function describePod(api: Api, namespace: string, name: string): string {
  const gs = api.store.get('agones.dev/gameservers', namespace, name);
  if (gs) {
    const status = (gs.status ?? {}) as { state?: string; address?: string; ports?: { name: string; port: number }[] };
    const ports = (status.ports ?? []).map((p) => `${p.name}=${p.port}`).join(',');
    return (
      `gameserver ${namespace}/${name}: state=${status.state ?? 'Unknown'} ` +
      `address=${status.address ?? ''} ports=${ports}`
    );
  }
  const pod = api.store.get('/pods', namespace, name);
  return `pod ${namespace}/${name}: phase=${(pod?.status as { phase?: string } | undefined)?.phase ?? 'Unknown'}`;
}
