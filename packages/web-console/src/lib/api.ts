/**
 * The API server's routes, addressed relative to the page (served at `<prefix>/console/`), so the
 * console works behind a path prefix without knowing it.
 */
export function apiUrl(path: `/api/${string}` | `/console/${string}`): string {
  const fromConsole = path.startsWith('/console/') ? path.slice('/console/'.length) : `..${path}`;
  return new URL(fromConsole, document.baseURI).toString();
}

/** A failed call, with a sentence for people in `message` and the HTTP status (0: no answer). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface Problem {
  title?: unknown;
  detail?: unknown;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

async function describeFailure(res: Response): Promise<string> {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      const problem = (await res.json()) as Problem;
      if (typeof problem.detail === 'string' && problem.detail !== '') return sentence(problem.detail);
      if (typeof problem.title === 'string' && problem.title !== '') return sentence(problem.title);
    } catch {
      // Not the JSON it claimed to be: fall through to the status.
    }
  }
  if (res.status === 401) return 'You are signed out.';
  if (res.status === 403) return 'You do not have the right to see this.';
  if (res.status >= 500) return `The API server could not answer (HTTP ${res.status}); try again in a moment.`;
  return `The API server refused the request (HTTP ${res.status}).`;
}

/** GETs a JSON document; throws ApiError with a sentence when the server cannot be reached or refuses. */
export async function getJson<T>(path: Parameters<typeof apiUrl>[0], signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path), {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
      signal: signal ?? null,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError('The console could not reach the API server; check your connection and reload.', 0);
  }
  if (!res.ok) throw new ApiError(await describeFailure(res), res.status);
  return (await res.json()) as T;
}

/**
 * Sends a state-changing request with the session cookie. `X-GSP-Console: 1` proves to the server
 * that the console sent it (a cross-site form cannot set a header). Answers the JSON body, if any.
 */
export async function send<T = unknown>(
  method: 'POST' | 'PUT' | 'DELETE',
  path: Parameters<typeof apiUrl>[0],
  { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<T | undefined> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path), {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        'x-gsp-console': '1',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError('The console could not reach the API server; check your connection and try again.', 0);
  }
  if (!res.ok) throw new ApiError(await describeFailure(res), res.status);
  if (res.status === 204 || !(res.headers.get('content-type') ?? '').includes('json')) return undefined;
  return (await res.json()) as T;
}
