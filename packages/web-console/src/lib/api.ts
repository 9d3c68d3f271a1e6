import { ApiError, createApi } from '@gsp/ui';
import type { components } from '../gen/api-server';

export { ApiError };
export type { JsonAnswer, JsonBody } from '@gsp/ui';
/** The API server's operations and named schemas, generated from its /openapi.json (`npm run generate`). */
export type { components, paths } from '../gen/api-server';

/** Who set a value, when, why and until when (`null` fields: not known, or not shown to this caller). */
export type SwitchRecord = NonNullable<components['schemas']['SwitchRecord']>;

/**
 * The API server's routes, addressed relative to the page (served at `<prefix>/console/`), so the
 * console works behind a path prefix without knowing it.
 */
export function apiUrl(path: `/api/${string}` | `/console/${string}`): string {
  const fromConsole = path.startsWith('/console/') ? path.slice('/console/'.length) : `..${path}`;
  return new URL(fromConsole, document.baseURI).toString();
}

/** `send` adds `X-GSP-Console: 1`, which proves to the server that the console sent the request. */
export const { getJson, send } = createApi({ header: 'x-gsp-console', urlOf: apiUrl, product: 'console' });
