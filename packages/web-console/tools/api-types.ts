import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, loadConfig } from '@gsp/api-server';
import type { ServedDocument } from '@gsp/service-kit/testing/openapi-doc';
import { clientTypes } from '@gsp/service-kit/testing/openapi-types';

/** The page's wire types, generated from the API server's document and committed. */
export const API_TYPES_FILE = join(import.meta.dirname, '..', 'src', 'gen', 'api-server.ts');
export const GENERATE_COMMAND = 'npm run generate -w packages/web-console';

/**
 * What the API server is configured with while it serves the document: the console's sign-in on,
 * so every route the page calls is in it (its issuer and client are named, never reached), and an
 * embedded PostgreSQL in `dataDir`, so no service of the machine is needed.
 */
const documentEnv = (dataDir: string): Record<string, string> => ({
  DATA_DIR: dataDir,
  AUTH_JWT_SECRET: 'api-types-secret-that-is-never-used-to-sign',
  AUTH_OIDC_ISSUER_URL: 'http://127.0.0.1:9/',
  AUTH_OIDC_AUDIENCE: 'gsp',
  CONSOLE_OIDC_CLIENT_ID: 'gsp-console',
  CONSOLE_OIDC_CLIENT_SECRET: 'api-types-client-secret',
  CONSOLE_PUBLIC_URL: 'http://127.0.0.1:9/console/',
});

/** The API server's /openapi.json as it serves it: the app built in-process, as the server builds it, and asked. */
export async function servedDocument(): Promise<ServedDocument> {
  const dataDir = await mkdtemp(join(tmpdir(), 'gsp-api-types-'));
  try {
    const app = await buildApp(loadConfig(documentEnv(dataDir)), false);
    try {
      return (await app.inject('/openapi.json')).json<ServedDocument>();
    } finally {
      await app.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The text of API_TYPES_FILE, from the document the API server serves now. */
export async function apiServerTypes(): Promise<string> {
  return clientTypes(await servedDocument(), { service: 'the API server', command: GENERATE_COMMAND });
}
