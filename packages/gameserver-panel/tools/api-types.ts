import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp, loadConfig } from '@gsp/control-plane';
import { startKubeLite } from '@gsp/kube-lite';
import type { ServedDocument } from '@gsp/service-kit/testing/openapi-doc';
import { clientTypes } from '@gsp/service-kit/testing/openapi-types';

/** The panel's wire types, generated from the control plane's document and committed. */
export const API_TYPES_FILE = join(import.meta.dirname, '..', 'src', 'gen', 'control-plane.ts');
export const GENERATE_COMMAND = 'npm run generate -w packages/gameserver-panel';

/**
 * What the control plane is configured with while it serves the document: Basic and API keys (the
 * routes do not depend on the sign-in methods; the panel's OIDC routes are not documented, being
 * browser navigations), over a kube-lite of its own, so no cluster or service of the machine is needed.
 */
const documentEnv = (kubeconfigPath: string): Record<string, string> => ({
  KUBECONFIG: kubeconfigPath,
  POD_NAMESPACE: 'default',
  AUTH_MODE: 'apikey,basic',
  AUTH_BASIC_USER: 'api-types',
  AUTH_BASIC_PASSWORD: 'api-types-password-never-used',
  AUTH_BASIC_ROLE: 'admin',
});

/** The control plane's /openapi.json as it serves it: the app built in-process, as the server builds it, and asked. */
export async function servedDocument(): Promise<ServedDocument> {
  const kube = await startKubeLite({ port: 0 });
  try {
    // Asking for the document is a request like any other: its audit line goes nowhere.
    const nowhere = new Writable({ write: (_chunk, _encoding, done) => done() });
    const app = await buildApp(loadConfig(documentEnv(kube.kubeconfigPath)), { logger: false, auditStream: nowhere });
    try {
      return (await app.inject('/openapi.json')).json<ServedDocument>();
    } finally {
      await app.close();
    }
  } finally {
    await kube.close();
  }
}

/** The text of API_TYPES_FILE, from the document the control plane serves now. */
export async function controlPlaneTypes(): Promise<string> {
  return clientTypes(await servedDocument(), { service: 'the control plane', command: GENERATE_COMMAND });
}
