/** What npm start prints once everything is ready: URLs, credentials, the state of kubectl access and what to try. */
import { isAbsolute, join, relative } from 'node:path';
import type { Env } from '@gsp/service-kit';
import { describeAccess } from './access.js';
import type { CliAccess } from './access.js';
import { CURL, gameServerWalkthrough, panelWalkthrough } from './demo.js';
import { DEV_TENANT } from './issuer/users.js';
import type { DevUser } from './issuer/users.js';
import { PORTS } from './ports.js';
import type { Ports } from './ports.js';
import { DEV_ADMIN, DEV_CLUSTER } from './tenant.js';

/** Where each part of the local platform answers. */
export interface PlatformUrls {
  api: string;
  controlPlane: string;
  /** The game-server panel, served by the control plane. */
  panel: string;
  /** kubectl's entry point (TLS, self-signed). */
  proxy: string;
  /** Where agents dial. */
  tunnel: string;
  agent: string;
  kube: string;
  console: string;
  issuer: string;
}

export interface BannerFacts {
  env: Env;
  /** The repository, from which the banner's paths are written. */
  root: string;
  dataDir: string;
  ports: Ports;
  urls: PlatformUrls;
  /** The banner's line for a cluster of KUBECONFIG, when one is used instead of kube-lite. */
  configuredCluster: string | undefined;
  kubeconfig: string;
  basicPassword: string;
  /** Where the control plane writes its audit lines (AUDIT_LOG_FILE), out of the console's way. */
  auditLog: string;
  clusterId: string;
  users: readonly DevUser[];
  /** The cluster proxy's flag cache TTL. */
  proxyTtl: string;
  access: CliAccess;
  jwtAudience: string;
  /** The development platform admin's token. */
  token: string;
}

export function printBanner(facts: BannerFacts): void {
  const { env, dataDir, ports, urls, token } = facts;
  const shown = (path: string) => shownFrom(facts.root, path);
  const apiUrl = urls.api;
  const controlPlaneUrl = urls.controlPlane;
  const password = facts.basicPassword;
  const devKubeconfig = shown(join(dataDir, 'dev-kubeconfig'));
  const tokenCommand = `${env.DEV_DATA_DIR ? `DEV_DATA_DIR=${dataDir} ` : ''}npm run -s token -- alice`;
  const cluster = facts.configuredCluster
    ? facts.configuredCluster
    : `kube-lite ${urls.kube} (npx gsp-kubectl --kubeconfig ${shown(facts.kubeconfig)} get namespaces)`;
  const db = env.DATABASE_URL ? 'DATABASE_URL' : `embedded PostgreSQL in ${shown(join(dataDir, 'api-server'))}`;
  const redis = env.REDIS_URL
    ? 'REDIS_URL'
    : `none: the proxy sees a switch change within its ${facts.proxyTtl} cache TTL (set REDIS_URL for milliseconds)`;
  const accessLines = describeAccess(facts.access, {
    apiUrl,
    org: DEV_TENANT,
    clusterId: facts.clusterId,
    clusterName: DEV_CLUSTER,
    pin: env.SERVICE_CLI_ACCESS_ENABLED,
  });
  const json = `-H 'Content-Type: application/json'`;
  const bearer = '-H "Authorization: Bearer $TOKEN"';
  const tokenAbout =
    `subject "${DEV_ADMIN}", audience "${facts.jwtAudience}", ` + 'expires in 12 hours; restart for a new one';
  const consoleLines = describeConsole(env, urls.console, urls.issuer, facts.users);
  const walkthrough = gameServerWalkthrough(
    controlPlaneUrl,
    password,
    facts.configuredCluster ? undefined : shown(facts.kubeconfig),
  );
  const metrics = (variable: keyof Ports) => `http://127.0.0.1:${ports[variable]}/metrics`;
  console.log(`
================ GSP platform, local development ================
api-server    ${apiUrl}  (OpenAPI ${apiUrl}/openapi.json, metrics ${metrics('API_SERVER_METRICS_PORT')})
${consoleLines.join('\n')}
control-plane ${controlPlaneUrl}  (metrics ${metrics('CONTROL_PLANE_METRICS_PORT')})
              Basic admin:${password}, try: ${CURL} -u admin:${password} ${controlPlaneUrl}/api/v1/session
              audit lines (one a request) go to ${shown(facts.auditLog)}: tail -f it to watch them
panel         ${urls.panel}  (sign in with user admin, password ${password}, or an API key)
proxy         ${urls.proxy} (kubectl), tunnel ${urls.tunnel}, metrics ${metrics('CLUSTER_PROXY_METRICS_PORT')}
agent         ${urls.agent}/readyz (tenant "${DEV_TENANT}", cluster "${DEV_CLUSTER}" ${facts.clusterId})
              metrics ${metrics('TUNNEL_AGENT_METRICS_PORT')}
cluster       ${cluster}
database      ${db}
redis         ${redis}
Ports move with ${Object.keys(PORTS).join(', ')} (0: any free port).

Development platform-admin token (${tokenAbout}):
  export TOKEN=${token}
Another subject, e.g. "alice" as a viewer of tenant "${DEV_TENANT}" (roles: admin, operator, viewer):
  ${CURL} -X PUT ${apiUrl}/api/v1/tenants/${DEV_TENANT}/members/alice ${bearer} ${json} -d '{"role": "viewer"}'
  export ALICE=$(${tokenCommand})
  ${CURL} ${apiUrl}/api/v1/tenants/${DEV_TENANT}/clusters -H "Authorization: Bearer $ALICE"

${accessLines.join('\n')}
${walkthrough.join('\n')}
${panelWalkthrough(urls.panel, controlPlaneUrl, password).join('\n')}

kubectl through the cluster proxy and the tunnel agent${facts.access.enabled ? '' : ' (410 while access is off)'}:
  curl -s ${apiUrl}/api/v1/tenants/${DEV_TENANT}/clusters/${facts.clusterId}/kubeconfig ${bearer} > ${devKubeconfig}
  npx gsp-kubectl --kubeconfig ${devKubeconfig} get namespaces
${consoleWalkthrough(urls.console, facts.users).join('\n')}
Press Ctrl-C to stop everything.
=================================================================
`);
}

/** A path as the user would type it from the repository root. */
function shownFrom(root: string, path: string): string {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** The banner's console lines: its URL, where it signs in, and the development users. */
function describeConsole(env: Env, url: string, issuer: string, users: readonly DevUser[]): string[] {
  if (users.length === 0) {
    const signIn = env.CONSOLE_OIDC_CLIENT_ID
      ? `signs in at AUTH_OIDC_ISSUER_URL ${issuer}`
      : 'no sign-in: set CONSOLE_OIDC_CLIENT_ID and CONSOLE_OIDC_CLIENT_SECRET, a client of AUTH_OIDC_ISSUER_URL';
    return [`console       ${url}  (${signIn})`];
  }
  const width = Math.max(...users.map((u) => u.login.length));
  return [
    `console       ${url}  (signs in at the development issuer ${issuer})`,
    ...users.map((u) => `              user ${u.login.padEnd(width)}  password ${u.password}  (${u.role})`),
  ];
}

/** One line to try the console with the development users. */
function consoleWalkthrough(url: string, users: readonly DevUser[]): string[] {
  const admin = users.find((u) => u.platformAdmin);
  const viewer = users.find((u) => u.tenantRole === 'viewer');
  if (admin === undefined || viewer === undefined) return [];
  return [
    '',
    `The web console: open ${url}, choose Sign in, and sign in as ${admin.login} (password above) to switch`,
    `  CLI access off or on; sign in as ${viewer.login} in a private window to watch it change live.`,
  ];
}
