/**
 * `npm start`'s development OpenID provider: oidc-provider (the one the tests use) with the web
 * console as its only client, the three development users, and a login page of its own that
 * checks their passwords. The console signs in here by the same code path as against any
 * production provider; only this issuer is for development.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import Provider, { errors, interactionPolicy } from 'oidc-provider';
import type { KoaContext } from 'oidc-provider';
import { MemoryAdapter } from './memory-adapter.js';
import { loginPage, messagePage, PAGE_CSP } from './pages.js';
import { checkPassword } from './users.js';
import type { DevUser } from './users.js';

export interface IssuerOptions {
  /** The issuer's URL, as the API server's AUTH_OIDC_ISSUER_URL names it (no trailing slash). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The console's `<CONSOLE_PUBLIC_URL>auth/callback`. */
  redirectUri: string;
  users: readonly DevUser[];
  /** The RSA private key (JWK) that signs ID tokens. */
  signingKey: Record<string, unknown>;
  cookieKey: string;
}

/** The console's session ends with its ID token: a working day, like the banner's HS256 token. */
const ID_TOKEN_TTL_SECONDS = 12 * 3600;
/** A login form's own fields; a body larger than this is not one. */
const MAX_FORM_BYTES = 4096;

const WRONG_PASSWORD =
  "That username and password don't match a user of this issuer. Check them in npm start's banner.";
const EXPIRED =
  'This sign-in has expired or was opened in another browser. Go back to the console and choose Sign in again.';

/** The issuer's request handler: the login page's routes, and oidc-provider for every other. */
export function createIssuer(options: IssuerOptions): RequestListener {
  const users = new Map(options.users.map((u) => [u.login, u]));
  const provider = new Provider(options.issuer, {
    adapter: MemoryAdapter,
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    jwks: { keys: [options.signingKey] },
    cookies: { keys: [options.cookieKey] },
    // Each set, or oidc-provider prints a notice that its defaults should be changed.
    ttl: {
      IdToken: ID_TOKEN_TTL_SECONDS,
      AccessToken: 600,
      AuthorizationCode: 60,
      Interaction: 3600,
      Grant: ID_TOKEN_TTL_SECONDS,
      Session: ID_TOKEN_TTL_SECONDS,
    },
    // Off: they accept any password. The login page is ours (below).
    features: { devInteractions: { enabled: false } },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
      policy: passwordAtEachSignIn(),
    },
    // The console asks for `profile` to show a name rather than the subject.
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'] },
    findAccount: (_ctx: unknown, sub: string) => {
      const user = users.get(sub);
      if (user === undefined) return undefined;
      return { accountId: sub, claims: () => ({ sub, name: user.name, preferred_username: user.login }) };
    },
    // The console is first-party: it is granted the scopes it asks for without a consent page.
    loadExistingGrant: async (ctx: KoaContext) => {
      const { client, session, result } = ctx.oidc;
      const accountId = session?.accountId;
      if (client === undefined || accountId === undefined) return undefined;
      const grantId = result?.consent?.grantId ?? session?.grantIdFor(client.clientId);
      const existing = grantId === undefined ? undefined : await ctx.oidc.provider.Grant.find(grantId);
      const grant = existing ?? new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
      grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(' '));
      await grant.save();
      return grant;
    },
    renderError: (ctx: KoaContext, out: { error?: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.body = messagePage('Sign-in failed', out.error_description ?? out.error ?? 'The request was refused.');
    },
  });
  const providerCallback = provider.callback();

  const handle: RequestListener = (req, res) => {
    const route = /^\/interaction\/([A-Za-z0-9_-]{1,64})(\/login|\/abort)?$/.exec(
      new URL(req.url ?? '/', 'http://x').pathname,
    );
    if (route === null) return providerCallback(req, res);
    interact(req, res, route[1]!, route[2]).catch((err: unknown) => {
      if (err instanceof errors.SessionNotFound) return send(res, 400, messagePage('Sign-in expired', EXPIRED));
      console.error(`dev issuer: the sign-in failed: ${(err as Error).message}`);
      send(
        res,
        500,
        messagePage('Sign-in failed', "The development issuer failed; its error is in npm start's output."),
      );
    });
  };

  async function interact(req: IncomingMessage, res: ServerResponse, uid: string, step: string | undefined) {
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
    const user = checkPassword(options.users, login, form.get('password') ?? '');
    if (user === undefined) return send(res, 401, loginPage({ uid, login, error: WRONG_PASSWORD }));
    // The password was just checked: a session the browser still has here (a previous sign-in,
    // maybe of another user) ends, else oidc-provider would first sign that one out with a page
    // of its own that posts itself by script.
    if (interaction.session?.uid !== undefined) {
      await (await provider.Session.findByUid(interaction.session.uid))?.destroy();
      delete interaction.session;
      await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
    }
    const result = { login: { accountId: user.login } };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }

  return handle;
}

/**
 * oidc-provider's interaction policy, with a password asked at every sign-in, even with a session
 * at the issuer: after Sign out, Sign in can then be another of the development users, in the same
 * browser (as `prompt=login` would ask).
 */
function passwordAtEachSignIn() {
  const { base, Check } = interactionPolicy;
  const policy = base();
  policy
    .get('login')!
    .checks.add(
      new Check('password_each_time', 'the development issuer asks for a password at each sign-in', (ctx) =>
        ctx.oidc.result?.login === undefined ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT,
      ),
    );
  return policy;
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
