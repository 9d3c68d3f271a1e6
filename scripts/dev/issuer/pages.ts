/**
 * The development issuer's pages: its own login form (oidc-provider's development pages take any
 * password) and a page for a sentence, server-rendered, with no script at all and a CSP that
 * allows only the one stylesheet below.
 */
import { createHash } from 'node:crypto';

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 0 1rem; color: #1b1f24; background: #f4f5f7; }
main {
  max-width: 22rem; margin: 3rem auto; padding: 1.5rem; background: #fff; border: 1px solid #c9ced6; border-radius: 6px;
}
h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
label { display: block; margin-top: 1rem; font-weight: 600; }
input {
  display: block; width: 100%; box-sizing: border-box; margin-top: .25rem; padding: .5rem; font: inherit;
  border: 1px solid #6b7380; border-radius: 4px;
}
button {
  margin-top: 1.25rem; padding: .5rem 1rem; font: inherit; border-radius: 4px; border: 1px solid #1d4ed8;
  background: #1d4ed8; color: #fff; cursor: pointer;
}
button.secondary { background: #fff; color: #1d4ed8; }
.actions { display: flex; gap: .75rem; align-items: baseline; }
.error { color: #a40e26; background: #fdecee; border: 1px solid #a40e26; border-radius: 4px; padding: .5rem .75rem; }
.hint { color: #4a515c; font-size: .9rem; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
`;

/** The pages' Content-Security-Policy: nothing but the stylesheet above, by its hash. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface LoginForm {
  /** The interaction's id: the forms post to `/interaction/<uid>/...`. */
  uid: string;
  /** Filled in again after a refusal, or from the client's `login_hint`. */
  login?: string;
  /** A sentence saying why the last attempt was refused. */
  error?: string;
}

export function loginPage({ uid, login = '', error }: LoginForm): string {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  const alert = error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>\n`;
  return page(
    'Sign in: GSP development issuer',
    `<h1>Sign in to the GSP console</h1>
<p class="hint">The development identity provider of <code>npm start</code>:
its users and their passwords are in npm start's banner.</p>
${alert}<form method="post" action="${action}/login">
<label for="login">Username</label>
<input id="login" name="login" autocomplete="username" autocapitalize="none" spellcheck="false" required
  value="${escapeHtml(login)}"${login === '' ? ' autofocus' : ''}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password"
  required${login === '' ? '' : ' autofocus'}>
<div class="actions">
<button type="submit">Sign in</button>
<button type="submit" class="secondary" form="cancel">Cancel</button>
</div>
</form>
<form id="cancel" method="post" action="${action}/abort"></form>`,
  );
}

/** A page that says one thing: an expired sign-in, or a failure of the provider. */
export function messagePage(title: string, sentence: string): string {
  return page(`${title}: GSP development issuer`, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(sentence)}</p>`);
}
