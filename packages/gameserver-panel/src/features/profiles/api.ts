import type { FieldProblem } from '@gsp/ui';
import { ApiError, getJson, send } from '../../lib/api';
import type { JsonAnswer, JsonBody, paths } from '../../lib/api';

export type { FieldProblem };

/**
 * A profile as `GET /api/v1/profiles` answers it; the fields the form does not edit one by one are
 * kept as they come and edited as JSON.
 */
export type Profile = JsonAnswer<paths['/api/v1/profiles']['get']>[number];
/** What `PUT /api/v1/profiles/{name}` takes: a profile without its name, defaults left out. */
export type ProfileBody = JsonBody<paths['/api/v1/profiles/{name}']['put']>;
export type ProfilePort = ProfileBody['ports'][number];
export type Compute = NonNullable<NonNullable<Profile['resources']>['requests']>;

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

/** The fields a refused PUT names (a bad profile's 400 names each), with their details as sentences. */
export function refusedFields(err: unknown): FieldProblem[] {
  if (!(err instanceof ApiError)) return [];
  return err.fields.map((field) => ({ ...field, detail: fieldSentence(field.detail) }));
}

/** Creates or replaces profile `name` (PUT); a refusal is an ApiError whose `fields` say where. */
export async function putProfile(name: string, body: ProfileBody): Promise<Profile> {
  return (await send<Profile>('PUT', profilePath(name), { body })) as Profile;
}
