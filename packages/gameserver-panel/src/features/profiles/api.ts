import { ApiError, getJson, panelUrl, send, SIGNED_OUT_EVENT } from '../../lib/api';

export interface ProfilePort {
  name: string;
  containerPort: number;
  protocol?: 'UDP' | 'TCP' | 'TCPUDP';
}

export interface Compute {
  cpu?: string;
  memory?: string;
}

/**
 * A profile as `GET /api/v1/profiles` answers it (the control plane's ProfileView); the fields
 * the form does not edit one by one are kept as they come and edited as JSON.
 */
export interface Profile {
  name: string;
  description?: string;
  image: string;
  ports: ProfilePort[];
  resources?: { requests?: Compute; limits?: Compute };
  players?: { initialCapacity: number };
  env?: Record<string, string>;
  health?: Record<string, unknown>;
  storage?: { size: string; storageClassName?: string; mountPath: string };
  restartCommand?: string[];
  actions?: Record<string, { command: string[]; timeoutSeconds?: number; description?: string }>;
  snapshot?: Record<string, unknown>;
}

/** One field a refusal names: an RFC 6901 pointer (`/ports/0/name`) in the body or the path, and a sentence. */
export interface FieldProblem {
  in: 'body' | 'path' | 'query' | 'header';
  pointer: string;
  detail: string;
}

/** A PUT the control plane refused: its sentence, and each field it named (400 for a bad profile). */
export class ProfileRefusal extends ApiError {
  constructor(
    message: string,
    status: number,
    readonly fields: FieldProblem[],
  ) {
    super(message, status);
    this.name = 'ProfileRefusal';
  }
}

const profilePath = (name: string) => `/api/v1/profiles/${encodeURIComponent(name)}` as const;

export const listProfiles = (signal: AbortSignal): Promise<Profile[]> => getJson<Profile[]>('/api/v1/profiles', signal);

export async function deleteProfile(name: string): Promise<void> {
  await send('DELETE', profilePath(name));
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/**
 * A field's detail as a sentence without changing the field's name: `ports[0].containerPort must
 * be at most 65535` reads "The ports[0].containerPort must be at most 65535."
 */
function fieldSentence(detail: string): string {
  const first = detail.trim().split(' ')[0] ?? '';
  return /^[a-z][^\s]*[.[]/.test(first) ? sentence(`The ${detail.trim()}`) : sentence(detail);
}

function fieldProblems(errors: unknown): FieldProblem[] {
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((e: unknown) => {
    if (typeof e !== 'object' || e === null) return [];
    const { in: part, pointer, detail } = e as Record<string, unknown>;
    if (typeof pointer !== 'string' || typeof detail !== 'string') return [];
    const where = part === 'path' || part === 'query' || part === 'header' ? part : 'body';
    return [{ in: where, pointer: pointer.replace(/^#/, ''), detail: fieldSentence(detail) }];
  });
}

/**
 * Creates or replaces profile `name` (PUT). Not through the shared client, which keeps only a
 * refusal's sentence: a profile's 400 names each field that failed (the problem's `errors`), and
 * the form shows each at its field. The same rules otherwise: `X-GSP-Panel: 1`, and a 401 tells
 * the app that the session ended.
 */
export async function putProfile(name: string, body: Omit<Profile, 'name'>): Promise<Profile> {
  let res: Response;
  try {
    res = await fetch(panelUrl(profilePath(name)), {
      method: 'PUT',
      credentials: 'same-origin',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'x-gsp-panel': '1' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError('The panel could not reach the control plane; check your connection and try again.', 0);
  }
  if (res.ok) return (await res.json()) as Profile;
  if (res.status === 401) window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  let problem: Record<string, unknown> = {};
  try {
    problem = (await res.json()) as Record<string, unknown>;
  } catch {
    // Not JSON: the status speaks.
  }
  const detail = typeof problem.detail === 'string' && problem.detail !== '' ? sentence(problem.detail) : undefined;
  throw new ProfileRefusal(
    detail ?? `The control plane refused the profile (HTTP ${res.status}).`,
    res.status,
    fieldProblems(problem.errors),
  );
}
