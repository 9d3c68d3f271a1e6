/**
 * The development issuer's login page: oidc-provider sends the browser to `/interaction/<uid>`,
 * where this shows the form, checks the password against the development users and tells the
 * provider who signed in (or that the user cancelled).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from 'oidc-provider';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import { loginPage, messagePage, PAGE_CSP } from './pages.js';
import { checkPassword } from './users.js';
import type { DevUser } from './users.js';

/** A login form's own fields; a body larger than this is not one. */
const MAX_FORM_BYTES = 4096;

const WRONG_PASSWORD =
  "That username and password don't match a user of this issuer. Check them in npm start's banner.";
const EXPIRED =
  'This sign-in has expired or was opened in another browser. Go back to the console and choose Sign in again.';

/** Where oidc-provider sends the browser to sign in. */
export const interactionUrl = (uid: string): string => `/interaction/${uid}`;

/** One request to the login page: its interaction's uid and its step (none: the form; `/login`, `/abort`). */
export interface InteractionRequest {
  req: IncomingMessage;
  res: ServerResponse;
  uid: string;
  step: string | undefined;
}

/** The login page's request, or undefined when `req` is the provider's. */
export function interactionRequest(req: IncomingMessage, res: ServerResponse): InteractionRequest | undefined {
  const route = /^\/interaction\/([A-Za-z0-9_-]{1,64})(\/login|\/abort)?$/.exec(
    new URL(req.url ?? '/', 'http://x').pathname,
  );
  return route === null ? undefined : { req, res, uid: route[1]!, step: route[2] };
}

/** Answers a login page's request; a failure is answered as a page saying what to do. */
export function interact(provider: Provider, users: readonly DevUser[], request: InteractionRequest): void {
  const { res } = request;
  answer(provider, users, request).catch((err: unknown) => {
    if (err instanceof errors.SessionNotFound) return send(res, 400, messagePage('Sign-in expired', EXPIRED));
    console.error(`dev issuer: the sign-in failed: ${(err as Error).message}`);
    send(res, 500, messagePage('Sign-in failed', "The development issuer failed; its error is in npm start's output."));
  });
}

async function answer(provider: Provider, users: readonly DevUser[], { req, res, uid, step }: InteractionRequest) {
  const interaction = await provider.interactionDetails(req, res);
  // The interaction cookie is scoped to its own path: a different uid here is another tab's.
  if (interaction.uid !== uid) return send(res, 400, messagePage('Sign-in expired', EXPIRED));
  if (interaction.prompt.name !== 'login')
    return send(res, 400, messagePage('Sign-in failed', `The issuer asked for "${interaction.prompt.name}".`));
  if (step === undefined && req.method === 'GET') {
    const hint = interaction.params.login_hint;
    return send(res, 200, loginPage({ uid, login: typeof hint === 'string' ? hint : '' }));
  }
  if (req.method !== 'POST') return send(res, 405, messagePage('Not allowed', 'Use the sign-in form.'));
  if (step === '/abort') {
    const result = { error: 'access_denied', error_description: 'the user cancelled the sign-in' };
    return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }
  const form = await readForm(req);
  if (form === undefined) return send(res, 413, messagePage('Sign-in failed', 'The form was too large.'));
  const login = form.get('login') ?? '';
  const user = checkPassword(users, login, form.get('password') ?? '');
  if (user === undefined) return send(res, 401, loginPage({ uid, login, error: WRONG_PASSWORD }));
  await endBrowserSession(provider, interaction);
  const result = { login: { accountId: user.login } };
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

/**
 * The password was just checked: a session the browser still has here (a previous sign-in, maybe
 * of another user) ends, else oidc-provider would first sign that one out with a page of its own
 * that posts itself by script.
 */
async function endBrowserSession(provider: Provider, interaction: Interaction): Promise<void> {
  if (interaction.session?.uid === undefined) return;
  await (await provider.Session.findByUid(interaction.session.uid))?.destroy();
  delete interaction.session;
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': PAGE_CSP,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  res.end(html);
}

/** The urlencoded body of a form post, or undefined when it is larger than a login form. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_FORM_BYTES) return undefined;
  }
  return new URLSearchParams(body);
}
