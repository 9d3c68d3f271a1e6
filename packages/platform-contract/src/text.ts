/**
 * Free text people write for other people to read (a switch's reason, a user's display name) and
 * what every stored string must be. One rule for the server that stores it, the page that checks it
 * before sending and the cleaner of names taken from identity providers.
 */

import { hasLoneSurrogate, WELL_FORMED_RULE } from '@gsp/service-kit/text';

// Whole characters are every service's rule, not this product's: service-kit holds it.
export { LONE_SURROGATE, hasLoneSurrogate, WELL_FORMED_RULE } from '@gsp/service-kit/text';

/**
 * What is never shown as written, yet changes what is shown around it: control characters (C0,
 * DEL, C1), format characters (bidirectional controls and isolates such as U+202E and U+2066, the
 * Arabic letter mark U+061C, zero-width space, joiners and word joiner U+200B–U+200D and U+2060, the
 * byte order mark U+FEFF, the soft hyphen, tag characters U+E0000–U+E007F), the line and paragraph
 * separators, and halves of characters. A reason with one reaches kubectl's Status message and the
 * console verbatim, where it would reorder, hide or forge the text around it.
 */
export const UNSHOWABLE_CHARACTERS = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const UNSHOWABLE_RUNS = new RegExp(`${UNSHOWABLE_CHARACTERS.source}+`, 'gu');

/** Whether `value` holds a character of UNSHOWABLE_CHARACTERS. */
export const hasUnshowable = (value: string): boolean => UNSHOWABLE_CHARACTERS.test(value);

/** `value` with each run of UNSHOWABLE_CHARACTERS replaced by one space (the display-name cleaner's first step). */
export const replaceUnshowable = (value: string): string => value.replace(UNSHOWABLE_RUNS, ' ');

/**
 * A character a reader sees: not white space, not UNSHOWABLE_CHARACTERS, not a combining mark on
 * its own, and none of the characters Unicode says to render as nothing (Default_Ignorable: the
 * Hangul fillers, variation selectors) nor the blank Braille pattern U+2800, which all look empty.
 */
const VISIBLE = /[^\s\p{Z}\p{Cc}\p{Cf}\p{Cs}\p{M}\p{Default_Ignorable_Code_Point}\u2800]/u;

/** Whether `value` has at least one visible character: "blank" means it has none. */
export const hasVisibleCharacter = (value: string): boolean => VISIBLE.test(value);

/** A reason is 1 to this many characters, counted in code points (as JSON Schema's `maxLength` counts). */
export const REASON_MAX_LENGTH = 200;

/** Characters as people and JSON Schema count them: code points, so an emoji is one, not two. */
export const characterCount = (value: string): number => [...value].length;

/**
 * Why `reason` (of a switch: shown to tenants, in the console and in kubectl's refusal) is refused,
 * as the 400 and the console's dialogs say it; undefined when it is fine.
 */
export function reasonProblem(reason: string): string | undefined {
  const length = characterCount(reason);
  if (length === 0) return 'reason must not be empty';
  if (length > REASON_MAX_LENGTH)
    return `reason must be at most ${REASON_MAX_LENGTH} characters long (it has ${length})`;
  if (hasLoneSurrogate(reason)) return `reason ${WELL_FORMED_RULE}`;
  if (hasUnshowable(reason))
    return (
      'reason must be printable: no control characters, line breaks, bidirectional controls ' +
      'or invisible characters'
    );
  if (!hasVisibleCharacter(reason)) return 'reason must not be blank: it needs at least one visible character';
  return undefined;
}
