/** One field a refusal names (a problem's `errors[]`): where (an RFC 6901 pointer in the body, path…) and why. */
export interface FieldProblem {
  in: 'body' | 'path' | 'query' | 'header';
  pointer: string;
  detail: string;
}

/**
 * A failed call, with a sentence for people in `message`, the HTTP status (0: no answer) and the
 * fields the refusal names, if any (a form shows each at its field).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly fields: readonly FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiOptions<P extends string> {
  /** The header every state-changing request carries (`<header>: 1`): a cross-site form cannot set one. */
  header: 'x-gsp-console' | 'x-gsp-panel';
  /** The absolute URL of a path, usually relative to `document.baseURI`, so the app works behind a prefix. */
  urlOf: (path: P) => string;
  /** The app's name in sentences ("The console could not reach the API server…"). */
  product: string;
  /** The server's name in sentences; default "API server". */
  server?: string;
  /** Called with every failure before it is thrown (for example: a 401 means the session ended). */
  onFailure?: (error: ApiError) => void;
}

export interface Api<P extends string> {
  /** GETs a JSON document; throws ApiError with a sentence when the server cannot be reached or refuses. */
  getJson<T>(path: P, signal?: AbortSignal): Promise<T>;
  /**
   * Sends a state-changing request with the session cookie and `<header>: 1`. Answers the JSON
   * body, if any.
   */
  send<T = unknown>(
    method: 'POST' | 'PUT' | 'DELETE',
    path: P,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<T | undefined>;
}

interface Problem {
  title?: unknown;
  detail?: unknown;
  errors?: unknown;
}

/** The well-formed entries of a problem's `errors[]`; anything else is left out. */
export function fieldProblems(errors: unknown): FieldProblem[] {
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const { in: part, pointer, detail } = entry as { in?: unknown; pointer?: unknown; detail?: unknown };
    if (typeof pointer !== 'string' || typeof detail !== 'string') return [];
    const where = part === 'path' || part === 'query' || part === 'header' ? part : 'body';
    return [{ in: where, pointer: pointer.replace(/^#/, ''), detail }];
  });
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

function statusSentence(status: number, server: string): string {
  if (status === 401) return 'You are signed out.';
  if (status === 403) return 'You do not have the right to see this.';
  if (status >= 500) return `The ${server} could not answer (HTTP ${status}); try again in a moment.`;
  return `The ${server} refused the request (HTTP ${status}).`;
}

/** A refusal as an ApiError: the problem's detail (else title, else the status) as a sentence, and its fields. */
async function refusal(res: Response, server: string): Promise<ApiError> {
  let problem: Problem = {};
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      problem = (await res.json()) as Problem;
    } catch {
      // Not the JSON it claimed to be: the status speaks.
    }
  }
  const text = [problem.detail, problem.title].find((t): t is string => typeof t === 'string' && t !== '');
  const message = text === undefined ? statusSentence(res.status, server) : sentence(text);
  return new ApiError(message, res.status, fieldProblems(problem.errors));
}

/** A fetch client for one app: same-origin cookies, JSON, failures as ApiError sentences. */
export function createApi<P extends string>(options: ApiOptions<P>): Api<P> {
  const { header, urlOf, product, server = 'API server', onFailure } = options;
  const fail = (error: ApiError): never => {
    onFailure?.(error);
    throw error;
  };
  const unreachable = (then: string) =>
    new ApiError(`The ${product} could not reach the ${server}; check your connection and ${then}.`, 0);

  async function getJson<T>(path: P, signal?: AbortSignal): Promise<T> {
    let res: Response;
    try {
      res = await fetch(urlOf(path), {
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
        signal: signal ?? null,
      });
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      return fail(unreachable('reload'));
    }
    if (!res.ok) return fail(await refusal(res, server));
    return (await res.json()) as T;
  }

  async function send<T = unknown>(
    method: 'POST' | 'PUT' | 'DELETE',
    path: P,
    { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<T | undefined> {
    let res: Response;
    try {
      res = await fetch(urlOf(path), {
        method,
        credentials: 'same-origin',
        headers: {
          accept: 'application/json',
          [header]: '1',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      return fail(unreachable('try again'));
    }
    if (!res.ok) return fail(await refusal(res, server));
    if (res.status === 204 || !(res.headers.get('content-type') ?? '').includes('json')) return undefined;
    return (await res.json()) as T;
  }

  return { getJson, send };
}
