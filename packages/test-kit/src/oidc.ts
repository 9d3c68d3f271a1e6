/**
 * The one OpenID provider of the tests: a real oidc-provider on a socket of its own, with its
 * development login and consent pages (any password signs a login in as itself). A test names its
 * clients and what its users' claims are; it can sign tokens as the provider with keys it holds,
 * and publish a new key set under the same issuer URL, as a redeployed identity provider would.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { JWK } from 'jose';
import type { Tap } from './tap.js';

export type { Tap } from './tap.js';
export { Browser, signIn } from './sign-in.js';
export type { SignInOptions, SignInOutcome } from './sign-in.js';

/** A signing key of the provider: the private half for `sign`, the public JWK it publishes. */
export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
}

export async function signingKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' } };
}

/** A confidential client (`client_secret_basic`) of the provider. */
export interface OidcClient {
  id: string;
  secret: string;
  /** Where it sends the browser back after sign-in. */
  redirectUri: string;
}

export interface OidcProviderOptions {
  clients?: OidcClient[];
  /** The keys it signs ID tokens with and publishes; by default oidc-provider's development key. */
  keys?: SigningKey[];
  /** The claims of a login beyond `sub` (the login is the subject); none by default. */
  account?: (login: string) => Record<string, unknown>;
  /** The claims each scope releases. Default: `openid` sub, `profile` name and preferred_username, `email` email. */
  claims?: Record<string, string[]>;
  /**
   * The claims in the ID token, and no user info endpoint. By default, as oidc-provider does, they
   * are kept out of ID tokens of the code flow and answered by the user info endpoint only.
   */
  idTokenClaims?: boolean;
  /** The ID token's lifetime; 3600 s by default (a distinctive one lets a test tell a session ends with it). */
  idTokenTtlSeconds?: number;
}

export interface OidcProvider {
  /** `http://127.0.0.1:<port>`, its discovery document under `/.well-known/openid-configuration`. */
  issuer: string;
  /** From now on the provider publishes (and signs with) `keys`, under the same issuer URL. */
  publish(keys: SigningKey[]): void;
  /** A JWT issued by this provider to `sub`: `aud` is the first client's id and it expires in 5 minutes unless told. */
  sign(
    key: SigningKey,
    sub: string,
    claims?: Record<string, unknown>,
    opts?: { aud?: string; exp?: string },
  ): Promise<string>;
  /** Requests its key set has answered so far. */
  jwksRequests(): number;
}

const DEFAULT_CLAIMS = { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'] };

function configuration(options: OidcProviderOptions, keys: SigningKey[] | undefined): Record<string, unknown> {
  const account = options.account ?? (() => ({}));
  return {
    clients: (options.clients ?? []).map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      redirect_uris: [c.redirectUri],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    ...(keys ? { jwks: { keys: keys.map((k) => k.jwk) } } : {}),
    pkce: { required: () => true },
    ttl: {
      IdToken: options.idTokenTtlSeconds ?? 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      AccessToken: 600,
    },
    cookies: { keys: ['cookie-key-for-tests'] },
    claims: options.claims ?? DEFAULT_CLAIMS,
    ...(options.idTokenClaims ? { features: { userinfo: { enabled: false } } } : {}),
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub, ...account(sub) }) }),
  };
}

/** The provider on 127.0.0.1 and a free port, closed (its open connections too) with `t`. */
export async function startOidcProvider(t: Tap, options: OidcProviderOptions = {}): Promise<OidcProvider> {
  let provider: Provider | undefined;
  let jwksRequests = 0;
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) jwksRequests++;
    (provider as Provider).callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Key-set fetches and browsers keep connections open, which close() would wait out.
        server.closeAllConnections();
      }),
  );
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const publish = (keys: SigningKey[] | undefined): void => {
    provider = new Provider(issuer, configuration(options, keys));
  };
  publish(options.keys);
  return {
    issuer,
    publish,
    sign: (key, sub, claims = {}, opts = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: key.alg, kid: key.kid })
        .setIssuer(issuer)
        .setSubject(sub)
        .setAudience(opts.aud ?? options.clients?.[0]?.id ?? 'test-client')
        .setIssuedAt()
        .setExpirationTime(opts.exp ?? '5m')
        .sign(key.privateKey),
    jwksRequests: () => jwksRequests,
  };
}
