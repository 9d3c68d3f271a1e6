import { getJson, SIGNED_OUT_EVENT } from './api';
import type { JsonAnswer, paths } from './api';

/** The verbs the page asks about (the control plane's permissions name these). */
export type Verb = 'get' | 'list' | 'create' | 'update' | 'delete' | 'execute';

/** `GET /panel/auth/session`: who is signed in, or how one may sign in. */
export type SessionAnswer = JsonAnswer<paths['/panel/auth/session']['get']>;
/** The signed-in answer. */
export type PanelSession = Extract<SessionAnswer, { signedIn: true }>;
/** The sign-in methods the control plane offers. */
export type SignInMethods = SessionAnswer['methods'];

/** `GET /panel/auth/session`: who is signed in, or how one may sign in. */
export function loadSession(signal: AbortSignal): Promise<SessionAnswer> {
  return getJson<SessionAnswer>('/panel/auth/session', signal);
}

/** Whether the role may do `verb` on `resource`: in `namespace`, or (without one) anywhere. */
export function can(session: PanelSession, resource: string, verb: Verb, namespace?: string): boolean {
  return session.permissions.some(
    (g) =>
      g.resource === resource &&
      g.verb === verb &&
      (namespace === undefined || g.namespaces === '*' || g.namespaces.includes(namespace)),
  );
}

/** Namespaces where the role may do `verb` on `resource`: `*` for every one. */
export function namespacesFor(session: PanelSession, resource: string, verb: Verb): '*' | string[] {
  const found = new Set<string>();
  for (const g of session.permissions) {
    if (g.resource !== resource || g.verb !== verb) continue;
    if (g.namespaces === '*') return '*';
    for (const ns of g.namespaces) found.add(ns);
  }
  return [...found].sort();
}

/** What a (resource, verb) pair lets a person do, in words. */
const DOING = new Map<string, string>([
  ['gameservers create', 'create game servers'],
  ['gameservers delete', 'delete game servers'],
  ['gameservers update', 'change game servers'],
  ['gameservers execute', 'run actions'],
  ['console execute', 'use the console'],
  ['logs get', 'read logs'],
  ['snapshots create', 'take snapshots'],
  ['snapshots update', 'restore snapshots'],
  ['snapshots delete', 'delete snapshots'],
  ['fleets update', 'scale fleets'],
  ['fleets create', 'create fleets'],
  ['fleets delete', 'delete fleets'],
  ['profiles create', 'create profiles'],
  ['profiles update', 'edit profiles'],
  ['profiles delete', 'delete profiles'],
  ['apikeys list', 'see API keys'],
  ['apikeys create', 'create API keys'],
  ['apikeys delete', 'revoke API keys'],
]);

/** The built-in operator role may do these; everything else that changes things is an admin's. */
const OPERATOR_CAN = new Set(['gameservers execute', 'console execute', 'snapshots create']);
const READ_VERBS = new Set<Verb>(['get', 'list']);

function doing(resource: string, verb: Verb): string {
  return DOING.get(`${resource} ${verb}`) ?? `${verb} ${resource}`;
}

function askWhom(resource: string, verb: Verb): string {
  if (READ_VERBS.has(verb) && resource !== 'apikeys') return 'ask an admin for a role that can';
  return OPERATOR_CAN.has(`${resource} ${verb}`) ? 'ask an operator or an admin' : 'ask an admin';
}

/**
 * Why a control is disabled, as a sentence: "Your role (viewer) cannot run actions; ask an operator
 * or an admin." With `namespace`, for a role that may do it elsewhere but not there.
 */
export function whyNot(session: PanelSession, resource: string, verb: Verb, namespace?: string): string {
  const who = session.role === null ? 'You have no role, so you' : `Your role (${session.role})`;
  const where = namespace !== undefined && can(session, resource, verb) ? ` in namespace ${namespace}` : '';
  return `${who} cannot ${doing(resource, verb)}${where}; ${askWhom(resource, verb)}.`;
}

/**
 * Asks the control plane whether the session still holds (after a live stream closed or was
 * refused); when it ended, raises `gsp:signed-out` so the app shows the sign-in view. Answers
 * whether it still holds; a failed question counts as holding (the stream retries).
 */
export async function sessionHolds(): Promise<boolean> {
  try {
    const answer = await getJson<SessionAnswer>('/panel/auth/session');
    if (answer.signedIn) return true;
    window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
    return false;
  } catch {
    return true;
  }
}
