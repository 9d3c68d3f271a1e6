/** The longest name the console shows for a user, in characters (code points). */
export const DISPLAY_NAME_MAX_LENGTH = 100;

/** The ID token claims a name is taken from, in order of preference. */
export const NAME_CLAIMS = ['name', 'email', 'preferred_username'] as const;

// C0 and C1 controls, DEL, and the invisible marks that reorder or hide text (bidi overrides,
// isolates, zero-width characters): none belongs in a name shown to another person.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]+/g;

/** `value` as one line of at most DISPLAY_NAME_MAX_LENGTH characters; undefined when nothing is left. */
export function showable(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const line = value.replace(UNSHOWABLE, ' ').replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  const chars = [...line];
  return chars.length <= DISPLAY_NAME_MAX_LENGTH ? line : `${chars.slice(0, DISPLAY_NAME_MAX_LENGTH - 1).join('')}…`;
}

/**
 * What the console calls a signed-in user: the ID token's `name`, else `email`, else
 * `preferred_username`, else the subject. Only for display: rights always follow the subject.
 */
export function displayName(claims: Readonly<Record<string, unknown>>, subject: string): string {
  for (const claim of NAME_CLAIMS) {
    const name = Object.hasOwn(claims, claim) ? showable(claims[claim]) : undefined;
    if (name !== undefined) return name;
  }
  return showable(subject) ?? subject;
}

/** Whether the claims carry any name the console would show (else the user info endpoint is asked). */
export const hasName = (claims: Readonly<Record<string, unknown>>): boolean =>
  NAME_CLAIMS.some((claim) => Object.hasOwn(claims, claim) && showable(claims[claim]) !== undefined);
