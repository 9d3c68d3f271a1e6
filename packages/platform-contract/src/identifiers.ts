/**
 * C0 and C1 control characters and DEL. None belongs in a subject, an org, a cluster id or a
 * name: a CR or LF in a subject would become a second header line on its way to the cluster.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** The same rule as a JSON-Schema `pattern` (whole string, no control character). */
export const NO_CONTROL_CHARACTERS_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

export const hasControlCharacters = (value: string): boolean => CONTROL_CHARACTERS.test(value);
