import { TENANT_ROLES } from './permissions.js';

/** `iss` of the tokens in downloaded kubeconfigs: the API server signs them. */
export const KUBECONFIG_ISSUER = 'gsp-api-server';
/** `aud` of the same tokens: the cluster proxy accepts no other. */
export const KUBECONFIG_AUDIENCE = 'gsp-cluster-proxy';
/** The specification's refusal: the proxy and the kubeconfig download answer 410 with it. */
export const CLI_ACCESS_DISABLED = 'CLI access is disabled by platform policy';
/**
 * The refusal when the off that decided is the tenant's own (its admin or operator set the
 * cluster's override): not the platform's policy, so the sentence does not say it is.
 */
export const CLI_ACCESS_DISABLED_BY_TENANT = "CLI access is disabled by the tenant's own decision";

/** Where the effective `cli_access.enabled` came from (the flags client's `source`). */
export type CliAccessSource = 'env' | 'cluster' | 'platform' | 'default';

/** `actorRole` of a value written by a platform admin. */
export const PLATFORM_ADMIN_ACTOR = 'platform-admin';
/** The actor of a clear made because a value's `expiresAt` passed. */
export const EXPIRY_ACTOR = 'system:expiry';

/**
 * A stored flag value with who set it, when, why and until when, as the services hold it. On the
 * wire it is the API server's `SwitchRecord` schema (RFC 3339 times, `actor` null where a platform
 * admin is not named to the caller), from which the web console's types are generated.
 */
export interface SwitchRecord {
  value: boolean;
  actor: string;
  /** `platform-admin`, the writer's tenant role, or null for a value written before records existed. */
  actorRole: string | null;
  /** Epoch milliseconds. */
  setAt: number;
  reason: string | null;
  /** Epoch milliseconds; null: until changed. */
  expiresAt: number | null;
}

/** Who set a value, as a kubectl user (a tenant member) is told: platform admins are not named. */
export function setterOf(record: SwitchRecord): string | undefined {
  if (record.actorRole === PLATFORM_ADMIN_ACTOR) return 'a platform admin';
  if (record.actorRole === null) return undefined;
  return `tenant ${record.actorRole} ${record.actor}`;
}

/** Whether the stored off that decided is the tenant's own: its cluster's override, set by one of its members. */
const tenantDecided = (source: CliAccessSource, record: SwitchRecord | undefined): boolean =>
  source === 'cluster' && TENANT_ROLES.some((role) => role === record?.actorRole);

/**
 * The 410 message for a cluster whose CLI access is off: the specification's words (or, when the
 * tenant's own admin or operator switched the cluster off, CLI_ACCESS_DISABLED_BY_TENANT), then
 * who turned it off, at which scope, why and until when, so a kubectl user knows whom to ask and
 * how long it lasts. `service` names the process whose `SERVICE_CLI_ACCESS_ENABLED` pin decided
 * it ("the proxy", "the API server"); `record` is the stored value that decided it.
 */
export function cliAccessDisabledMessage(
  clusterId: string,
  source: CliAccessSource,
  service: string,
  record?: SwitchRecord,
): string {
  let why: string;
  if (source === 'env') why = `pinned by SERVICE_CLI_ACCESS_ENABLED on ${service}`;
  else if (source === 'default') why = 'the built-in default';
  else {
    const where = source === 'cluster' ? 'for this cluster' : 'for the whole platform';
    const by = record === undefined ? undefined : setterOf(record);
    why = by === undefined ? `set ${where}` : `set by ${by} ${where}`;
    if (record?.reason) why += `: ${JSON.stringify(record.reason)}`;
    if (record?.expiresAt != null) why += ` (until ${new Date(record.expiresAt).toISOString()})`;
  }
  const sentence = tenantDecided(source, record) ? CLI_ACCESS_DISABLED_BY_TENANT : CLI_ACCESS_DISABLED;
  return `${sentence} for cluster ${clusterId}: ${why}`;
}
