import { ApiError, createApi } from '@gsp/ui';

export { ApiError };
export type { JsonAnswer, JsonBody } from '@gsp/ui';
/** The control plane's operations and named schemas, generated from its /openapi.json (`npm run generate`). */
export type { components, paths } from '../gen/control-plane';

/** A control-plane path: the API, or the panel's own routes (served under `<prefix>/panel/`). */
export type PanelPath = `/api/${string}` | `/panel/${string}`;

/**
 * The URL of a control-plane path, relative to the page (served at `<prefix>/panel/`), so the panel
 * works behind a path prefix without knowing it: `/panel/x` -> `x`, `/api/v1/x` -> `../api/v1/x`.
 */
export function panelUrl(path: PanelPath): string {
  const fromPanel = path.startsWith('/panel/') ? path.slice('/panel/'.length) : `..${path}`;
  return new URL(fromPanel, document.baseURI).toString();
}

/** The same-origin WebSocket URL of an API path (`wss:` when the page is served over https). */
export function wsUrl(path: `/api/${string}`): string {
  const url = new URL(panelUrl(path));
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** The event the app listens for: the session ended, so it shows the sign-in view. */
export const SIGNED_OUT_EVENT = 'gsp:signed-out';

const client = createApi<PanelPath>({
  header: 'x-gsp-panel',
  urlOf: panelUrl,
  product: 'panel',
  server: 'control plane',
});

/**
 * A 401 from anything but the sign-in routes means the session ended (signed out elsewhere, key
 * revoked, expired): tell the app, which shows the sign-in view. The sign-in routes answer 401 for
 * a wrong credential, which the sign-in form shows itself.
 */
function signedOutBy(path: PanelPath, err: unknown): void {
  if (err instanceof ApiError && err.status === 401 && !path.startsWith('/panel/auth/')) {
    window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  }
}

/** GETs a JSON document; throws ApiError with a sentence when the server cannot be reached or refuses. */
export async function getJson<T>(path: PanelPath, signal?: AbortSignal): Promise<T> {
  try {
    return await client.getJson<T>(path, signal);
  } catch (err) {
    signedOutBy(path, err);
    throw err;
  }
}

/**
 * Sends a state-changing request with the session cookie and `X-GSP-Panel: 1`, which proves to the
 * control plane that the panel sent it (a cross-site form cannot set a header). Answers the JSON
 * body, if any.
 */
export async function send<T = unknown>(
  method: 'POST' | 'PUT' | 'DELETE',
  path: PanelPath,
  options: { body?: unknown } = {},
): Promise<T | undefined> {
  try {
    return await client.send<T>(method, path, options);
  } catch (err) {
    signedOutBy(path, err);
    throw err;
  }
}
