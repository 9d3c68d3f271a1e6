/** The value of cookie `name` in a `Cookie` header; undefined when absent or empty. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

export interface CookieOptions {
  path: string;
  secure: boolean;
  /** Strict for a session; Lax for a sign-in under way, whose callback arrives from the provider's site. */
  sameSite: 'Strict' | 'Lax';
  /** Seconds; 0 deletes the cookie. Unset: until the browser closes. */
  maxAgeSeconds?: number;
}

/** A `Set-Cookie` value for an HttpOnly cookie whose value is base64url (nothing to encode). */
export function setCookie(name: string, value: string, opts: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${opts.path}`, 'HttpOnly', `SameSite=${opts.sameSite}`];
  if (opts.secure) parts.push('Secure');
  if (opts.maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`);
  return parts.join('; ');
}
