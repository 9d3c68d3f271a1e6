// No control characters is every service's rule, not this product's: service-kit holds it.
export { CONTROL_CHARACTERS, hasControlCharacters, NO_CONTROL_CHARACTERS_PATTERN } from '@gsp/service-kit/text';

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

/**
 * An RFC 1123 label (a namespace, a Kubernetes object name, a tenant, a cluster, a platform id) as
 * k8s.io/apimachinery writes it: unanchored, to compose with and to quote in its messages.
 */
export const DNS_LABEL_REGEX = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
/** Labels joined by dots (a ConfigMap or Secret name, a label key's prefix). */
export const DNS_SUBDOMAIN_REGEX = `${DNS_LABEL_REGEX}(\\.${DNS_LABEL_REGEX})*`;
export const DNS_LABEL_MAX_LENGTH = 63;
export const DNS_SUBDOMAIN_MAX_LENGTH = 253;

/** The label rule as a JSON-Schema `pattern` (with `maxLength` DNS_LABEL_MAX_LENGTH). */
export const DNS_LABEL_PATTERN = `^${DNS_LABEL_REGEX}$`;
/** The subdomain rule as a JSON-Schema `pattern` (with `maxLength` DNS_SUBDOMAIN_MAX_LENGTH). */
export const DNS_SUBDOMAIN_PATTERN = `^${DNS_SUBDOMAIN_REGEX}$`;
/** The label's characters, whole string; the length is isDnsLabel's. */
export const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);
/** The subdomain's characters, whole string; the length is isDnsSubdomain's. */
export const DNS_SUBDOMAIN = new RegExp(DNS_SUBDOMAIN_PATTERN);

/** The label rule in words: what a page says before sending and a 400 says after the field's name. */
export const DNS_LABEL_RULE =
  `1 to ${DNS_LABEL_MAX_LENGTH} lower-case letters, digits or "-", ` + 'starting and ending with a letter or digit';

/** Whether `value` is a DNS-1123 label: 1 to 63 lower-case letters, digits and '-', alphanumeric at both ends. */
export const isDnsLabel = (value: string): boolean => value.length <= DNS_LABEL_MAX_LENGTH && DNS_LABEL.test(value);

/** Whether `value` is a DNS-1123 subdomain: labels joined by '.', at most 253 characters. */
export const isDnsSubdomain = (value: string): boolean =>
  value.length <= DNS_SUBDOMAIN_MAX_LENGTH && DNS_SUBDOMAIN.test(value);

/**
 * The longest tenant (org) a request may name where it reads rather than creates one: a created
 * tenant is a DNS label, a name in a path or a context is only bounded, by a DNS subdomain's length.
 */
export const ORG_MAX_LENGTH = DNS_SUBDOMAIN_MAX_LENGTH;

/** The longest cluster id a request may name: ids are UUIDs (36 characters), the bound leaves room. */
export const CLUSTER_ID_MAX_LENGTH = 64;

/**
 * Why an identity provider's token cannot name a platform user, or undefined when it can: its
 * subject begins with RESERVED_PREFIX. The services hand this to service-kit's OIDC verifier.
 */
export const tokenSubjectProblem = (sub: string): string | undefined =>
  isReservedName(sub) ? `the token's subject begins with "${RESERVED_PREFIX}", which Kubernetes reserves` : undefined;
