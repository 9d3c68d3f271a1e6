/** `iss` of the tokens in downloaded kubeconfigs: the API server signs them. */
export const KUBECONFIG_ISSUER = 'gsp-api-server';
/** `aud` of the same tokens: the cluster proxy accepts no other. */
export const KUBECONFIG_AUDIENCE = 'gsp-cluster-proxy';
/** The specification's refusal: the proxy and the kubeconfig download answer 410 with it. */
export const CLI_ACCESS_DISABLED = 'CLI access is disabled by platform policy';

/** Where the effective `cli_access.enabled` came from (the flags client's `source`). */
export type CliAccessSource = 'env' | 'cluster' | 'platform' | 'default';

/**
 * The 410 message for a cluster whose CLI access is off: the specification's words, then who
 * turned it off, so a kubectl user knows whom to ask. `service` names the process whose
 * `SERVICE_CLI_ACCESS_ENABLED` pin decided it ("the proxy", "the API server").
 */
export function cliAccessDisabledMessage(clusterId: string, source: CliAccessSource, service: string): string {
  const why = {
    cluster: 'set for this cluster',
    platform: 'set for the whole platform',
    env: `pinned by SERVICE_CLI_ACCESS_ENABLED on ${service}`,
    default: 'the built-in default',
  }[source];
  return `${CLI_ACCESS_DISABLED} for cluster ${clusterId} (${why})`;
}
