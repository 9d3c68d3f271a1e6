/**
 * What any stored or forwarded string must be, whatever the product: whole characters (no half of
 * one), and no control characters where a value travels into a header or a name. Browser-safe (no
 * `node:` import), so a page checks the same rule before sending: `@gsp/service-kit/text`, which
 * `@gsp/platform-contract` re-exports beside the product's own rules.
 */

/**
 * An unpaired UTF-16 surrogate: half of a character. JSON can write one (`"\udc00"`), but no UTF-8
 * text holds it: PostgreSQL refuses it in jsonb and turns it into U+FFFD in a text column, and
 * kube-apiserver does the same. With the `u` flag a class of surrogates matches only unpaired ones.
 */
export const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** Whether `value` holds half a character (see LONE_SURROGATE): no such string is stored anywhere. */
export const hasLoneSurrogate = (value: string): boolean => LONE_SURROGATE.test(value);

/** The well-formedness rule as a 400 says it, after the field's name. */
export const WELL_FORMED_RULE =
  'must be well-formed Unicode text: it holds half of a character (an unpaired UTF-16 surrogate such as \\udc00)';

/**
 * C0 and C1 control characters and DEL. None belongs in a subject, an org, a cluster id or a
 * name: a CR or LF in a subject would become a second header line on its way to the cluster.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** The same rule as a JSON-Schema `pattern` (whole string, no control character). */
export const NO_CONTROL_CHARACTERS_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

export const hasControlCharacters = (value: string): boolean => CONTROL_CHARACTERS.test(value);
