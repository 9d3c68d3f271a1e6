/** The banner's account of kubectl access in `npm start`: whether it is on, why, and what turns it. */
import { CURL } from './demo.js';

/** `cliAccess` of `GET /api/v1/tenants/{org}/clusters/{id}/access`. */
export interface CliAccess {
  enabled: boolean;
  /** What decided: `env` (the pin), `cluster`, `platform` or `default`. */
  source: string;
  envPinned: boolean;
  /** The stored value that decided: who set it, why, until when (absent from older API servers). */
  record?: { actor: string | null; actorRole: string | null; reason: string | null; expiresAt: string | null } | null;
}

export interface AccessContext {
  apiUrl: string;
  org: string;
  clusterId: string;
  clusterName: string;
  /** SERVICE_CLI_ACCESS_ENABLED as npm start got it. */
  pin: string | undefined;
  /** Now, in epoch ms: the example "off" expires an hour later. */
  now?: number;
}

/** `: "why" (until when)` of a stored off, or nothing. */
function because(access: CliAccess): string {
  const r = access.record;
  if (!r) return '';
  const reason = r.reason ? ` (${JSON.stringify(r.reason)})` : '';
  return `${reason}${r.expiresAt ? `, back on by itself at ${r.expiresAt}` : ''}`;
}

/** Banner lines: the state and its reason, and only commands that change it (none while pinned). */
export function describeAccess(access: CliAccess, ctx: AccessContext): string[] {
  const platformFlag = `${ctx.apiUrl}/api/v1/platform/feature-flags/cli_access.enabled`;
  const clusterFlag =
    `${ctx.apiUrl}/api/v1/tenants/${ctx.org}/clusters/${ctx.clusterId}` + '/feature-flags/cli_access.enabled';
  const auth = '-H "Authorization: Bearer $TOKEN"';
  const until = new Date((ctx.now ?? Date.now()) + 3600_000).toISOString();
  const body = JSON.stringify({ value: false, reason: 'trying the kill switch', expiresAt: until });
  const turnOff = `  ${CURL} -X PUT ${platformFlag} ${auth} -H 'Content-Type: application/json' -d '${body}'`;
  const clear = (url: string): string => `  ${CURL} -X DELETE ${url} ${auth}`;
  if (access.envPinned) {
    return [
      `kubectl access is pinned ${access.enabled ? 'ON' : 'OFF'} by SERVICE_CLI_ACCESS_ENABLED=${ctx.pin ?? ''} ` +
        "in npm start's environment",
      '(the API server and the proxy both read it): the switch API still stores values, but none takes effect',
      'until npm start runs again without SERVICE_CLI_ACCESS_ENABLED.',
    ];
  }
  if (!access.enabled && access.source === 'cluster') {
    return [
      `kubectl access is OFF for cluster "${ctx.clusterName}": ` +
        `cli_access.enabled is stored false for this cluster${because(access)} (its own`,
      'override, whatever the platform value). kubectl and kubeconfig downloads answer 410; the agent redials',
      'and connects within seconds of access coming back. Back on for this cluster:',
      clear(clusterFlag),
    ];
  }
  if (!access.enabled) {
    return [
      `kubectl access is OFF: cli_access.enabled is stored false for the whole platform${because(access)}. ` +
        'kubectl and kubeconfig',
      'downloads answer 410; the agent redials and connects within seconds of access coming back. Back on:',
      clear(platformFlag),
    ];
  }
  const why = access.source === 'default' ? 'the built-in default' : `stored true for the ${access.source}`;
  return [
    `kubectl access is ON (${why}). Turn it off for the whole platform for an hour, with a reason kubectl`,
    `users will read (it comes back by itself at ${until}), then back on now:`,
    turnOff,
    clear(platformFlag),
  ];
}
