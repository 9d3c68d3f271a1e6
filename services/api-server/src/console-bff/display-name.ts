import { hasVisibleCharacter, replaceUnshowable } from '@gsp/platform-contract/text';

/** The longest name the console shows for a user, in characters (code points). */
export const DISPLAY_NAME_MAX_LENGTH = 100;

/** The ID token claims a name is taken from, in order of preference. */
export const NAME_CLAIMS = ['name', 'email', 'preferred_username'] as const;

/**
 * `value` as one line of at most DISPLAY_NAME_MAX_LENGTH characters; undefined when nothing visible
 * is left. What the reason rule refuses (platform-contract's UNSHOWABLE_CHARACTERS: controls,
 * bidirectional and other invisible characters, halves of characters) is cleaned out here instead:
 * a name comes from an identity provider, and no one can ask it to be retyped.
 */
export function showable(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const line = replaceUnshowable(value).replace(/\s+/g, ' ').trim();
  if (!hasVisibleCharacter(line)) return undefined;
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
