/** A real OpenID provider (oidc-provider) on a socket, for the tests that sign in with bearer tokens. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { JWK } from 'jose';

export const CLIENT_ID = 'control-plane';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
}

export async function signingKey(kid: string, alg: 'RS256' | 'ES256'): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' } };
}

/**
 * A real oidc-provider on a socket. Its keys can be rotated: a new Provider with the new key set
 * takes over the same issuer URL, as a redeployed identity provider would.
 */
export async function startIssuer(t: Tap) {
  let provider: Provider | undefined;
  let jwksRequests = 0;
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) jwksRequests++;
    (provider as Provider).callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const publish = (keys: SigningKey[]) => {
    provider = new Provider(issuer, {
      jwks: { keys: keys.map((k) => k.jwk) },
      clients: [{ client_id: CLIENT_ID, client_secret: 'not-used-here', redirect_uris: ['http://127.0.0.1/cb'] }],
    });
  };
  const sign = async (
    key: SigningKey,
    sub: string,
    claims: Record<string, unknown> = {},
    opts: { aud?: string; exp?: string } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: key.kid })
      .setIssuer(issuer)
      .setSubject(sub)
      .setAudience(opts.aud ?? CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? '5m')
      .sign(key.privateKey);
  return { issuer, publish, sign, jwksRequests: () => jwksRequests };
}
type Tap = { teardown(fn: () => unknown): void };
