// What the platform's browser apps (the web console, the game-server panel) share on the server:
// OpenID Connect sign-in, the returnTo rule, the built page and its headers. A subpath of its own,
// so services without a browser app do not load openid-client or @fastify/static.
export { asSignInProblem, createSignInClient, ProviderUnavailable, SignInRefused } from './sign-in-client.js';
export type {
  CompletedSignIn,
  IdTokenClaims,
  LoginSecrets,
  SignInClient,
  SignInClientOptions,
  SignInProblems,
} from './sign-in-client.js';
export { returnTarget } from './return-to.js';
export {
  BROWSER_APP_CSP,
  cacheControlFor,
  HASHED_ASSET_CACHE,
  secureBrowserPage,
  serveBuiltApp,
} from './browser-page.js';
export type { BuiltAppOptions } from './browser-page.js';
