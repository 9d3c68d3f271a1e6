/**
 * `npm start`'s development OpenID provider: oidc-provider (the one the tests use) with the web
 * console as its only client, the three development users, and a login page of its own that
 * checks their passwords. The console signs in here by the same code path as against any
 * production provider; only this issuer is for development.
 */
import type { RequestListener } from 'node:http';
import Provider, { interactionPolicy } from 'oidc-provider';
import type { KoaContext } from 'oidc-provider';
import { interact, interactionRequest, interactionUrl } from './interaction.js';
import { MemoryAdapter } from './memory-adapter.js';
import { messagePage, PAGE_CSP } from './pages.js';
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

/** The issuer's request handler: the login page's routes, and oidc-provider for every other. */
export function createIssuer(options: IssuerOptions): RequestListener {
  const provider = createProvider(options);
  const providerCallback = provider.callback();
  return (req, res) => {
    const interaction = interactionRequest(req, res);
    if (interaction === undefined) return providerCallback(req, res);
    interact(provider, options.users, interaction);
  };
}

/** oidc-provider with the console as its only client, the development users as its accounts, and our login page. */
function createProvider(options: IssuerOptions): Provider {
  const users = new Map(options.users.map((u) => [u.login, u]));
  return new Provider(options.issuer, {
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
    // Off: they accept any password. The login page is ours (./interaction.ts).
    features: { devInteractions: { enabled: false } },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => interactionUrl(interaction.uid),
      policy: passwordAtEachSignIn(),
    },
    // The console asks for `profile` to show a name rather than the subject.
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'] },
    findAccount: (_ctx: unknown, sub: string) => {
      const user = users.get(sub);
      if (user === undefined) return undefined;
      return { accountId: sub, claims: () => ({ sub, name: user.name, preferred_username: user.login }) };
    },
    loadExistingGrant: grantWithoutConsent,
    renderError: (ctx: KoaContext, out: { error?: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.set('Content-Security-Policy', PAGE_CSP);
      ctx.body = messagePage('Sign-in failed', out.error_description ?? out.error ?? 'The request was refused.');
    },
  });
}

/** The console is first-party: it is granted the scopes it asks for without a consent page. */
async function grantWithoutConsent(ctx: KoaContext) {
  const { client, session, result } = ctx.oidc;
  const accountId = session?.accountId;
  if (client === undefined || accountId === undefined) return undefined;
  const grantId = result?.consent?.grantId ?? session?.grantIdFor(client.clientId);
  const existing = grantId === undefined ? undefined : await ctx.oidc.provider.Grant.find(grantId);
  const grant = existing ?? new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId });
  grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(' '));
  await grant.save();
  return grant;
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
