/**
 * A browser's side of an OIDC sign-in over plain HTTP: a cookie jar over fetch, and the walk
 * through the test provider's login and consent pages that a person would make.
 */

/** Whether a request to `pathname` carries a cookie of `path` (RFC 6265 5.1.4). */
const pathMatches = (pathname: string, path: string): boolean =>
  pathname === path || (pathname.startsWith(path) && (path.endsWith('/') || pathname[path.length] === '/'));

/** A browser's cookie jar over fetch (by host and port, and by Path), following no redirect by itself. */
export class Browser {
  readonly cookies = new Map<string, Map<string, { value: string; path: string }>>();
  /** Every Set-Cookie header received, in order, with the URL that sent it. */
  readonly setCookies: { url: string; value: string }[] = [];

  /** The Cookie header a browser would send to `url`. */
  cookieHeader(url: string): string {
    const { host, pathname } = new URL(url);
    const jar = this.cookies.get(host) ?? new Map<string, { value: string; path: string }>();
    return [...jar]
      .filter(([, c]) => pathMatches(pathname, c.path))
      .map(([k, c]) => `${k}=${c.value}`)
      .join('; ');
  }

  cookie(url: string, name: string): string | undefined {
    return this.cookies.get(new URL(url).host)?.get(name)?.value;
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie !== '' && !headers.has('cookie')) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    const host = new URL(url).host;
    for (const value of res.headers.getSetCookie()) {
      this.setCookies.push({ url, value });
      const [pair = '', ...attributes] = value.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const path = attributes.map((a) => /^\s*path=(.*)$/i.exec(a)?.[1]?.trim()).find((p) => p !== undefined) ?? '/';
      const jar = this.cookies.get(host) ?? new Map<string, { value: string; path: string }>();
      this.cookies.set(host, jar);
      const gone = /;\s*max-age=0\b/i.test(value) || /;\s*expires=Thu, 01 Jan 1970/i.test(value);
      if (gone || pair.slice(eq + 1) === '') jar.delete(name);
      else jar.set(name, { value: pair.slice(eq + 1), path });
    }
    return res;
  }
}

/** The first form of an HTML page: where it posts and its hidden fields. */
function formOf(html: string, base: string): { action: string; fields: URLSearchParams } | undefined {
  const form = /<form[^>]*action="([^"]+)"[^>]*method="post"/i.exec(html);
  if (!form) return undefined;
  const fields = new URLSearchParams();
  for (const input of html.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/gi))
    fields.set(input[1]!, input[2]!);
  return { action: new URL(form[1]!, base).href, fields };
}

export interface SignInOptions {
  /** Where the sign-in begins: the app's login URL. */
  start: string;
  /** The app's origin, as the browser sees it (a front or proxy in front of it included). */
  app: string;
  /** The provider's issuer URL. */
  issuer: string;
  /** The login typed into the provider's login page (any password is taken). */
  login: string;
  /** Aborts at the consent page instead of granting. */
  deny?: boolean;
}

export interface SignInOutcome {
  /** Where the sign-in finally sent the browser (the app, or the callback's error). */
  finalUrl: string;
  /** The app's first response that is not a redirect to the provider. */
  response: Response;
}

/**
 * Signs in as a person would: opens `start`, follows redirects, fills the provider's login form
 * and consent form (or aborts there with `deny`). Stops at the first response of the app that is
 * not a redirect to the provider.
 */
export async function signIn(browser: Browser, options: SignInOptions): Promise<SignInOutcome> {
  const app = new URL(options.app).origin;
  const issuer = new URL(options.issuer).origin;
  let url = options.start;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const res = await browser.fetch(url, init);
    const location = res.headers.get('location');
    const toProvider = location !== null && new URL(location, url).origin === issuer;
    if (new URL(url).origin === app && !toProvider) return { finalUrl: url, response: res };
    if (location !== null && res.status >= 300 && res.status < 400) {
      url = new URL(location, url).href;
      init = {};
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${url}: ${html.slice(0, 300)}`);
    if (options.deny && html.includes('name="prompt" value="consent"')) {
      const abort = /href="([^"]*\/abort)"/.exec(html);
      if (!abort) throw new Error('no abort link on the consent page');
      url = new URL(abort[1]!, url).href;
      init = {};
      continue;
    }
    const form = formOf(html, url);
    if (!form) throw new Error(`no form at ${url}: ${html.slice(0, 300)}`);
    if (form.fields.get('prompt') === 'login') {
      form.fields.set('login', options.login);
      form.fields.set('password', 'any password');
    }
    url = form.action;
    init = {
      method: 'POST',
      body: form.fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  }
  throw new Error('the sign-in did not finish in 20 steps');
}
