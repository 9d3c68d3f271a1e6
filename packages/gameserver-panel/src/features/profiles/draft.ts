import { DNS_LABEL_RULE, isDnsLabel } from '@gsp/platform-contract/identifiers';
import type { FieldProblem, Profile, ProfileBody, ProfilePort } from './api';

/** A port as the form holds it: text, so that what was typed is what the control plane judges. */
export interface PortDraft {
  name: string;
  containerPort: string;
  protocol: string;
}

/**
 * A profile as the form edits it: the common fields one by one, everything else (env, health,
 * storage, restartCommand, actions, snapshot) as one JSON object in `rest`.
 */
export interface ProfileDraft {
  name: string;
  description: string;
  image: string;
  ports: PortDraft[];
  cpuRequest: string;
  memoryRequest: string;
  cpuLimit: string;
  memoryLimit: string;
  capacity: string;
  rest: string;
}

/** The form's fields, by key: where a problem is shown. */
export type FieldKey =
  | 'name'
  | 'description'
  | 'image'
  | 'ports'
  | `ports/${number}/${'name' | 'containerPort' | 'protocol'}`
  | `resources/${'requests' | 'limits'}/${'cpu' | 'memory'}`
  | 'players'
  | 'rest';

/** A problem to show: at its field when it names one the form has, and in the summary. */
export interface Problem {
  field?: FieldKey;
  message: string;
}

/** The fields with a control of their own; the rest of the document is the JSON field. */
const OWN_FIELDS = new Set(['name', 'description', 'image', 'ports', 'resources', 'players']);
const PORT_FIELDS = new Set(['name', 'containerPort', 'protocol']);
const KINDS = new Set(['requests', 'limits']);
const COMPUTE = new Set(['cpu', 'memory']);

export const PROTOCOLS = ['UDP', 'TCP', 'TCPUDP'] as const;

export const NEW_PORT: PortDraft = { name: 'game', containerPort: '7777', protocol: 'UDP' };

/** The draft of `profile`, or of a new one (an empty image, one UDP port). */
export function draftOf(profile?: Profile): ProfileDraft {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(profile ?? {})) if (!OWN_FIELDS.has(key)) rest[key] = value;
  const { requests = {}, limits = {} } = profile?.resources ?? {};
  return {
    name: profile?.name ?? '',
    description: profile?.description ?? '',
    image: profile?.image ?? '',
    ports: (profile?.ports ?? [NEW_PORT]).map((p) => ({
      name: p.name,
      containerPort: String(p.containerPort),
      protocol: p.protocol ?? 'UDP',
    })),
    cpuRequest: requests.cpu ?? '',
    memoryRequest: requests.memory ?? '',
    cpuLimit: limits.cpu ?? '',
    memoryLimit: limits.memory ?? '',
    capacity: profile?.players === undefined ? '' : String(profile.players.initialCapacity),
    rest: Object.keys(rest).length === 0 ? '{}' : JSON.stringify(rest, null, 2),
  };
}

/** A whole number as a number; anything else as typed, so the control plane names what is wrong. */
const wholeOr = (text: string): number | string => (/^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : text);

function compute(cpu: string, memory: string): { cpu?: string; memory?: string } | undefined {
  const out = {
    ...(cpu.trim() === '' ? {} : { cpu: cpu.trim() }),
    ...(memory.trim() === '' ? {} : { memory: memory.trim() }),
  };
  return Object.keys(out).length === 0 ? undefined : out;
}

function restOf(text: string): { rest: Record<string, unknown> } | { problem: Problem } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch (err) {
    const why = err instanceof SyntaxError ? `: ${err.message}` : '';
    return { problem: { field: 'rest', message: `The other settings are not valid JSON${why}.` } };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { problem: { field: 'rest', message: 'The other settings must be a JSON object, such as {"env": {}}.' } };
  const own = Object.keys(parsed).filter((key) => OWN_FIELDS.has(key));
  if (own.length > 0)
    return {
      problem: {
        field: 'rest',
        message:
          `Edit ${own.join(', ')} in ${own.length === 1 ? 'its field' : 'their fields'} above, ` +
          'not in the other settings.',
      },
    };
  return { rest: parsed as Record<string, unknown> };
}

/**
 * The body to PUT for `draft`, or what is wrong before sending: only what the page must know
 * itself (the name of a new profile, JSON syntax). The profile's own rules are the control
 * plane's, which names each field that breaks one.
 */
export function bodyOf(
  draft: ProfileDraft,
  isNew: boolean,
  taken: ReadonlySet<string>,
): { body: ProfileBody } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const name = draft.name.trim();
  if (isNew && !isDnsLabel(name)) problems.push({ field: 'name', message: `A profile name is ${DNS_LABEL_RULE}.` });
  else if (isNew && taken.has(name))
    problems.push({
      field: 'name',
      message: `A profile named ${name} exists already; choose another name, or edit that one.`,
    });
  const rest = restOf(draft.rest);
  if ('problem' in rest) problems.push(rest.problem);
  if (problems.length > 0 || 'problem' in rest) return { problems };
  const requests = compute(draft.cpuRequest, draft.memoryRequest);
  const limits = compute(draft.cpuLimit, draft.memoryLimit);
  const ports = draft.ports.map((p) => ({
    name: p.name.trim(),
    containerPort: wholeOr(p.containerPort),
    protocol: p.protocol,
  }));
  const body = {
    ...rest.rest,
    ...(draft.description.trim() === '' ? {} : { description: draft.description.trim() }),
    image: draft.image.trim(),
    ports: ports as ProfilePort[],
    ...(requests === undefined && limits === undefined
      ? {}
      : { resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } }),
    ...(draft.capacity.trim() === '' ? {} : { players: { initialCapacity: wholeOr(draft.capacity) as number } }),
  };
  return { body };
}

/** The field a refusal names, when the form has one; undefined: the summary alone says it. */
export function fieldOf(problem: FieldProblem): FieldKey | undefined {
  if (problem.in === 'path') return 'name';
  const [first, second, third] = problem.pointer.split('/').slice(1);
  if (first === undefined || first === '') return undefined;
  if (first === 'description' || first === 'image' || first === 'players') return first;
  if (first === 'ports') {
    const index = Number(second);
    if (second === undefined || !Number.isInteger(index)) return 'ports';
    const part = third !== undefined && PORT_FIELDS.has(third) ? third : 'name';
    return `ports/${index}/${part}` as FieldKey;
  }
  if (first === 'resources')
    return second !== undefined && third !== undefined && KINDS.has(second) && COMPUTE.has(third)
      ? (`resources/${second}/${third}` as FieldKey)
      : undefined;
  // Anything else of the document (env, storage, a misspelt field) is in the JSON field.
  return 'rest';
}
