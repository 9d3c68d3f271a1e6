import * as client from 'openid-client';
import type { JWTPayload } from 'jose';

/** How long one request to the identity provider may take, in seconds. */
const PROVIDER_TIMEOUT_SECONDS = 5;

/** The sign-in failed in a way the user can act on (start again, ask for access): a 401. */
export class SignInRefused extends Error {}

/** The identity provider cannot be reached or answered nonsense: a 503, try again later. */
export class ProviderUnavailable extends Error {}

export interface LoginSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface PanelOidcClient {
  /** The provider's authorization URL for a new sign-in. */
  authorizationUrl(login: LoginSecrets): Promise<URL>;
  /** Exchanges the code the callback received (its query string) for the checked ID token's claims. */
  complete(query: string, login: LoginSecrets): Promise<JWTPayload & { sub: string; exp: number }>;
}

export interface PanelOidcOptions {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/**
 * The panel as a confidential OpenID Connect client (authorization code, PKCE, state, nonce), as
 * the API server's console is. The provider's metadata is discovered at the first sign-in and
 * kept; a failed discovery is retried at the next, so the control plane starts while it is down.
 */
export function createPanelOidcClient(options: PanelOidcOptions): PanelOidcClient {
  let configuration: Promise<client.Configuration> | undefined;
  const discovered = (): Promise<client.Configuration> => {
    configuration ??= client
      .discovery(
        new URL(options.issuerUrl),
        options.clientId,
        { redirect_uris: [options.redirectUri], response_types: ['code'] },
        client.ClientSecretBasic(options.clientSecret),
        {
          timeout: PROVIDER_TIMEOUT_SECONDS,
          // AUTH_OIDC_ISSUER_URL may be http (development, tests); bearer tokens accept it too.
          execute: new URL(options.issuerUrl).protocol === 'http:' ? [client.allowInsecureRequests] : [],
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
        redirect_uri: options.redirectUri,
        scope: 'openid profile email',
        state: login.state,
        nonce: login.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(login.codeVerifier),
        code_challenge_method: 'S256',
      });
    },

    async complete(query, login) {
      const config = await discovered();
      // The redirect URI as registered, with what the provider sent: nothing from the Host header.
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
      return claims;
    },
  };
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
