/** The console's session cookie: HttpOnly, so no script of the page can read it. */
export const SESSION_COOKIE = 'gsp_session';
/** The state of a sign-in under way, which binds the callback to the browser that started it. */
export const LOGIN_COOKIE = 'gsp_login';

// One cookie grammar for the platform's browser products (the control plane's panel uses it too).
export { cookieValue, setCookie } from '@gsp/service-kit';
export type { CookieOptions } from '@gsp/service-kit';
