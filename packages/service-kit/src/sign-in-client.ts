import * as client from 'openid-client';
import type { JWTPayload } from 'jose';

/** How long one request to the identity provider may take, in seconds. */
const PROVIDER_TIMEOUT_SECONDS = 5;

/** The sign-in failed in a way the user can act on (start again, ask for access): a 401. */
export class SignInRefused extends Error {}

/** The identity provider cannot be reached or answered nonsense: a 503, try again later. */
export class ProviderUnavailable extends Error {}

/** What one sign-in keeps between the redirect to the provider and its callback. */
export interface LoginSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The checked ID token's claims; `sub` and `exp` are always there. */
export type IdTokenClaims = JWTPayload & { sub: string; exp: number };

/** A completed code exchange. */
export interface CompletedSignIn {
  claims: IdTokenClaims;
  /**
   * The user info of the signed-in user, for a provider that keeps profile claims out of ID tokens
   * (as OIDC Core 5.4 says for the code flow); `{}` when it has no such endpoint or does not
   * answer, since a missing name must not stop a sign-in.
   */
  userInfo(): Promise<Readonly<Record<string, unknown>>>;
}

export interface SignInClient {
  /** The provider's authorization URL for a new sign-in. */
  authorizationUrl(login: LoginSecrets): Promise<URL>;
  /** Exchanges the code the callback received (its query string) for the checked ID token's claims. */
  complete(query: string, login: LoginSecrets): Promise<CompletedSignIn>;
}

export interface SignInClientOptions {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /**
   * What the authorization request asks for. Default `openid profile email`: a name to show rather than the
   * subject.
   */
  scope?: string | undefined;
}

/**
 * A browser app (the web console, the game-server panel) as a confidential OpenID Connect client:
 * authorization code, PKCE, state, nonce. The provider's metadata is discovered at the first
 * sign-in and kept; a failed discovery is retried at the next, so the service starts while the
 * provider is down.
 */
export function createSignInClient(options: SignInClientOptions): SignInClient {
  const scope = options.scope ?? 'openid profile email';
  let configuration: Promise<client.Configuration> | undefined;
  const discovered = (): Promise<client.Configuration> => {
    configuration ??= discover(options).catch((err: unknown) => {
      configuration = undefined;
      throw new ProviderUnavailable(`the identity provider's discovery failed: ${messageOf(err)}`);
    });
    return configuration;
  };

  return {
    async authorizationUrl(login) {
      const config = await discovered();
      return client.buildAuthorizationUrl(config, {
        redirect_uri: options.redirectUri,
        scope,
        state: login.state,
        nonce: login.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(login.codeVerifier),
        code_challenge_method: 'S256',
      });
    },

    async complete(query, login) {
      const config = await discovered();
      // The redirect URI as registered, with what the provider sent: openid-client sends the
      // former back to the token endpoint, and nothing comes from the request's Host header.
      const currentUrl = new URL(options.redirectUri);
      currentUrl.search = query;
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: login.codeVerifier,
          expectedState: login.state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        throw refusalOf(err);
      }
      const claims = tokens.claims();
      if (claims === undefined) throw new SignInRefused('the identity provider returned no ID token');
      return { claims, userInfo: () => userInfo(config, tokens.access_token, claims.sub) };
    },
  };
}

/** How a service answers a failed sign-in step: its own 401 and 503 problems. */
export interface SignInProblems {
  refused: (message: string) => Error;
  unavailable: (message: string) => Error;
}

/** `work` (a sign-in step), with the provider's refusals and its absence as the service's problems: never a 500. */
export async function asSignInProblem<T>(work: Promise<T>, problems: SignInProblems): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof SignInRefused) throw problems.refused(err.message);
    if (err instanceof ProviderUnavailable) throw problems.unavailable(err.message);
    throw err;
  }
}

function discover(options: SignInClientOptions): Promise<client.Configuration> {
  return client.discovery(
    new URL(options.issuerUrl),
    options.clientId,
    { redirect_uris: [options.redirectUri], response_types: ['code'] },
    client.ClientSecretBasic(options.clientSecret),
    {
      timeout: PROVIDER_TIMEOUT_SECONDS,
      // AUTH_OIDC_ISSUER_URL may be http (development, tests); the bearer-token path accepts it too.
      execute: new URL(options.issuerUrl).protocol === 'http:' ? [client.allowInsecureRequests] : [],
    },
  );
}

async function userInfo(
  config: client.Configuration,
  accessToken: string,
  sub: string,
): Promise<Readonly<Record<string, unknown>>> {
  if (config.serverMetadata().userinfo_endpoint === undefined) return {};
  try {
    return await client.fetchUserInfo(config, accessToken, sub);
  } catch {
    return {};
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What a failed code exchange tells the user: the provider refused, or it cannot be reached. */
function refusalOf(err: unknown): Error {
  if (err instanceof client.AuthorizationResponseError) {
    const description = err.error_description ? ` (${err.error_description})` : '';
    return new SignInRefused(`the identity provider refused the sign-in: ${err.error}${description}`);
  }
  if (err instanceof client.ResponseBodyError)
    return new SignInRefused(`the identity provider refused the code exchange: ${err.error}`);
  const code = (err as { code?: unknown }).code;
  // openid-client's checks of the response (state, nonce, ID token claims) carry OAUTH_* codes.
  if (typeof code === 'string' && code.startsWith('OAUTH_'))
    return new SignInRefused(`the sign-in response did not check out: ${messageOf(err)}`);
  return new ProviderUnavailable(`the identity provider cannot be reached: ${messageOf(err)}`);
}
