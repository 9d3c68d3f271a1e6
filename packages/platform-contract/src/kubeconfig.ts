/** `iss` of the tokens in downloaded kubeconfigs: the API server signs them. */
export const KUBECONFIG_ISSUER = 'gsp-api-server';
/** `aud` of the same tokens: the cluster proxy accepts no other. */
export const KUBECONFIG_AUDIENCE = 'gsp-cluster-proxy';
/** The specification's refusal: the proxy and the kubeconfig download answer 410 with it. */
export const CLI_ACCESS_DISABLED = 'CLI access is disabled by platform policy';
