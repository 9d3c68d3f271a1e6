/**
 * C0 and C1 control characters and DEL. None belongs in a subject, an org, a cluster id or a
 * name: a CR or LF in a subject would become a second header line on its way to the cluster.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** The same rule as a JSON-Schema `pattern` (whole string, no control character). */
export const NO_CONTROL_CHARACTERS_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

export const hasControlCharacters = (value: string): boolean => CONTROL_CHARACTERS.test(value);

/** The longest subject a member, a token or a kubeconfig may name (OIDC Core 2 caps `sub` at 255). */
export const SUBJECT_MAX_LENGTH = 255;

/**
 * Kubernetes reserves `system:` for its own users and groups (`system:kube-controller-manager`,
 * `system:masters`); impersonating one would grant a platform user that component's rights.
 */
export const RESERVED_PREFIX = 'system:';

/**
 * The subject rule as a JSON-Schema `pattern` (with `maxLength` SUBJECT_MAX_LENGTH). A subject
 * reaches the cluster as the Impersonate-User header, which kube-apiserver reads as bytes: only
 * visible ASCII and inner spaces arrive as written (a character above U+007F would arrive as other
 * bytes, one above U+00FF cannot be sent at all, surrounding spaces are stripped). And it must
 * not begin with RESERVED_PREFIX.
 */
export const SUBJECT_PATTERN = `^(?!${RESERVED_PREFIX})[\\x21-\\x7e](?:[\\x20-\\x7e]*[\\x21-\\x7e])?$`;
const SUBJECT = new RegExp(SUBJECT_PATTERN);

/** The subject rule in words: what a 400 or a 401 says, whichever check refused it. */
export const SUBJECT_RULE =
  `a subject is 1 to ${SUBJECT_MAX_LENGTH} visible ASCII characters (inner spaces allowed) ` +
  `and does not begin with "${RESERVED_PREFIX}", which Kubernetes reserves for its own components`;

/** Whether `name` (a subject or a group) is one Kubernetes keeps for itself. */
export const isReservedName = (name: string): boolean => name.startsWith(RESERVED_PREFIX);

/**
 * SUBJECT_RULE when `subject` cannot be a platform user with kubectl access, or undefined when it
 * can: every place a subject is written (a member) or becomes a kubectl identity asks this.
 */
export function subjectProblem(subject: string): string | undefined {
  return subject.length <= SUBJECT_MAX_LENGTH && SUBJECT.test(subject) ? undefined : SUBJECT_RULE;
}
