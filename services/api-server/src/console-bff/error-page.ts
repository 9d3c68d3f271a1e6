/**
 * The page a browser gets when signing in fails (the provider refused, the sign-in is stale, the
 * provider is out of reach): the reason as a sentence and a link to start again, not raw JSON.
 * No script and no style, so the strictest Content-Security-Policy applies.
 */
export function signInErrorPage(message: string, loginUrl: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Sign-in failed</title></head>',
    '<body><main>',
    '<h1>Sign-in failed</h1>',
    `<p>${escapeHtml(sentence(message))}</p>`,
    `<p><a href="${escapeHtml(loginUrl)}">Sign in again</a></p>`,
    '</main></body></html>',
  ].join('\n');
}

/** The CSP of that page: nothing may load, nothing may frame it. */
export const ERROR_PAGE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const sentence = (message: string): string => {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
};

const ESCAPES = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ['"', '&quot;'],
  ["'", '&#39;'],
]);
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES.get(c) ?? c);
