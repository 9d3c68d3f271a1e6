import { createSignInClient, SignInRefused } from '@gsp/service-kit/browser-app';
import type { LoginSecrets } from '@gsp/service-kit/browser-app';
import { hasControlCharacters, hasLoneSurrogate, isReservedName } from '@gsp/platform-contract';
import type { ConsoleSignIn } from '../config/console-auth.js';
import { displayName, hasName } from './display-name.js';

/** A completed sign-in: the subject as bearer tokens name it, what to call the user, when its ID token expires. */
export interface SignedIn {
  subject: string;
  /** For display only (see `displayName`); rights follow the subject. */
  name: string;
  expiresAt: Date;
}

export interface BffOidcClient {
  /** The provider's authorization URL for a new sign-in. */
  authorizationUrl(login: LoginSecrets): Promise<URL>;
  /** Exchanges the code the callback received (its query string) for who signed in. */
  complete(query: string, login: LoginSecrets): Promise<SignedIn>;
}

/**
 * The console's sign-in: service-kit's OpenID Connect client (profile and email asked for, a name
 * to show rather than the subject), with the subject named and checked as bearer tokens are.
 */
export function createBffOidcClient(signIn: ConsoleSignIn): BffOidcClient {
  const client = createSignInClient(signIn);
  return {
    authorizationUrl: (login) => client.authorizationUrl(login),

    async complete(query, login) {
      const { claims, userInfo } = await client.complete(query, login);
      const subject = `${claims.iss}#${claims.sub}`;
      // As for bearer tokens: the subject becomes role bindings and Impersonate-User at a cluster.
      if (hasControlCharacters(subject) || hasLoneSurrogate(subject) || isReservedName(claims.sub))
        throw new SignInRefused("the ID token's subject is not one this platform accepts");
      const named = hasName(claims) ? claims : await userInfo();
      return { subject, name: displayName(named, subject), expiresAt: new Date(claims.exp * 1000) };
    },
  };
}
