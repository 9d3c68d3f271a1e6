import * as client from 'openid-client';
import { hasControlCharacters, isReservedName } from '@gsp/platform-contract';
import type { ConsoleSignIn } from './auth-config.js';
import { displayName, hasName } from './display-name.js';

/** How long one request to the identity provider may take, in seconds. */
const PROVIDER_TIMEOUT_SECONDS = 5;

/** The sign-in failed in a way the user can act on (start again, ask for access): a 400 or 401. */
export class SignInRefused extends Error {
  constructor(
    readonly status: 400 | 401,
    message: string,
  ) {
    super(message);
  }
}

/** The identity provider cannot be reached or answered nonsense: a 503, try again later. */
export class ProviderUnavailable extends Error {}

/** A completed sign-in: the subject as bearer tokens name it, what to call the user, when its ID token expires. */
export interface SignedIn {
  subject: string;
  /** For display only (see `displayName`); rights follow the subject. */
  name: string;
  expiresAt: Date;
}

export interface ConsoleOidcClient {
  /** The provider's authorization URL for a new sign-in. */
  authorizationUrl(login: { state: string; nonce: string; codeVerifier: string }): Promise<URL>;
  /** Exchanges the code the callback received (its query string) for a checked ID token. */
  complete(query: string, login: { state: string; nonce: string; codeVerifier: string }): Promise<SignedIn>;
}

/**
 * The console as a confidential OpenID Connect client (authorization code, PKCE, state, nonce).
 * The provider's metadata is discovered at the first sign-in and kept; a failed discovery is
 * retried at the next, so the API server starts while the provider is down.
 */
export function createConsoleOidcClient(signIn: ConsoleSignIn): ConsoleOidcClient {
  let configuration: Promise<client.Configuration> | undefined;
  const discovered = (): Promise<client.Configuration> => {
    configuration ??= client
      .discovery(
        new URL(signIn.issuerUrl),
        signIn.clientId,
        { redirect_uris: [signIn.redirectUri], response_types: ['code'] },
        client.ClientSecretBasic(signIn.clientSecret),
        {
          timeout: PROVIDER_TIMEOUT_SECONDS,
          // AUTH_OIDC_ISSUER_URL may be http (development, tests); the bearer-token path accepts it too.
          execute: new URL(signIn.issuerUrl).protocol === 'http:' ? [client.allowInsecureRequests] : [],
        },
      )
      .catch((err: unknown) => {
        configuration = undefined;
        throw new ProviderUnavailable(`the identity provider's discovery failed: ${messageOf(err)}`);
      });
    return configuration;
  };

  return {
    async authorizationUrl(login) {
      const config = await discovered();
      return client.buildAuthorizationUrl(config, {
        redirect_uri: signIn.redirectUri,
        // profile and email: a name to show in the console rather than the subject.
        scope: 'openid profile email',
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
      const currentUrl = new URL(signIn.redirectUri);
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
      if (claims === undefined) throw new SignInRefused(401, 'the identity provider returned no ID token');
      const subject = `${claims.iss}#${claims.sub}`;
      // As for bearer tokens: the subject becomes role bindings and Impersonate-User at a cluster.
      if (hasControlCharacters(subject) || isReservedName(claims.sub))
        throw new SignInRefused(401, "the ID token's subject is not one this platform accepts");
      const named = hasName(claims) ? claims : await userInfo(config, tokens.access_token, claims.sub);
      return { subject, name: displayName(named, subject), expiresAt: new Date(claims.exp * 1000) };
    },
  };
}

/**
 * The user info of the signed-in user, for a provider that keeps profile claims out of ID tokens
 * (as OIDC Core 5.4 says for the code flow); `{}` when it has no such endpoint or does not answer,
 * since a missing name must not stop a sign-in.
 */
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
    return new SignInRefused(401, `the identity provider refused the sign-in: ${err.error}${description}`);
  }
  if (err instanceof client.ResponseBodyError)
    return new SignInRefused(401, `the identity provider refused the code exchange: ${err.error}`);
  const code = (err as { code?: unknown }).code;
  // openid-client's checks of the response (state, nonce, ID token claims) carry OAUTH_* codes.
  if (typeof code === 'string' && code.startsWith('OAUTH_'))
    return new SignInRefused(401, `the sign-in response did not check out: ${messageOf(err)}`);
  return new ProviderUnavailable(`the identity provider cannot be reached: ${messageOf(err)}`);
}
