/** The test OpenID provider (@gsp/test-kit/oidc) as the tests that sign in with bearer tokens use it. */
import { startOidcProvider } from '@gsp/test-kit/oidc';
import type { OidcProvider, Tap } from '@gsp/test-kit/oidc';

export { signingKey } from '@gsp/test-kit/oidc';
export type { SigningKey } from '@gsp/test-kit/oidc';

export const CLIENT_ID = 'control-plane';

/** The provider with the control plane as its client; `publish` a key set before signing with it. */
export function startIssuer(t: Tap): Promise<OidcProvider> {
  return startOidcProvider(t, {
    clients: [{ id: CLIENT_ID, secret: 'not-used-here', redirectUri: 'http://127.0.0.1/cb' }],
  });
}
