/**
 * Name validators with the rules and messages of k8s.io/apimachinery/pkg/util/validation.
 */
import {
  DNS_LABEL_MAX_LENGTH,
  DNS_LABEL_REGEX,
  DNS_SUBDOMAIN_MAX_LENGTH,
  DNS_SUBDOMAIN_REGEX,
} from '@gsp/platform-contract';
import type { NameRule } from './registry.js';

const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';

/**
 * A check of one name format, as apimachinery words it: too long, then not matching `regex`
 * (`rule`, with examples and the regex itself).
 */
function formatCheck(maxLength: number, regex: string, rule: string, examples: string): (value: string) => string[] {
  const pattern = new RegExp(`^${regex}$`);
  const mismatch = `${rule} (e.g. ${examples}, regex used for validation is '${regex}')`;
  return (value) => {
    const errors: string[] = [];
    if (value.length > maxLength) errors.push(`must be no more than ${maxLength} characters`);
    if (!pattern.test(value)) errors.push(mismatch);
    return errors;
  };
}

/** Returns the problems with `value` as a DNS-1123 label (RFC 1123), empty when valid. */
export const dns1123LabelErrors = formatCheck(
  DNS_LABEL_MAX_LENGTH,
  DNS_LABEL_REGEX,
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " +
    'and must start and end with an alphanumeric character',
  "'my-name',  or '123-abc'",
);

/** Returns the problems with `value` as a DNS-1123 subdomain, empty when valid. */
export const dns1123SubdomainErrors = formatCheck(
  DNS_SUBDOMAIN_MAX_LENGTH,
  DNS_SUBDOMAIN_REGEX,
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
    'and must start and end with an alphanumeric character',
  "'example.com'",
);

/** Returns the problems with `value` as a DNS-1035 label (services), empty when valid. */
export const dns1035LabelErrors = formatCheck(
  DNS_LABEL_MAX_LENGTH,
  DNS1035_LABEL,
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', " +
    'start with an alphabetic character, and end with an alphanumeric character',
  "'my-name',  or 'abc-123'",
);

/** `path.IsValidPathSegmentName`, the rule for RBAC names (`system:controller:x` is valid). */
export function pathSegmentNameErrors(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}

export function nameErrors(rule: NameRule, name: string): string[] {
  switch (rule) {
    case 'path-segment':
      return pathSegmentNameErrors(name);
    case 'dns1123-label':
      return dns1123LabelErrors(name);
    case 'dns1035-label':
      return dns1035LabelErrors(name);
    case 'dns1123-subdomain':
      return dns1123SubdomainErrors(name);
  }
}

export function isValidName(rule: NameRule, name: string): boolean {
  return nameErrors(rule, name).length === 0;
}

const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameRe = new RegExp(`^${QUALIFIED_NAME}$`);

/** A label or annotation key: optional DNS-1123 subdomain prefix and `/`, then a name of at most 63 characters. */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  let name: string;
  const errors: string[] = [];
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else errors.push(...dns1123SubdomainErrors(prefix).map((e) => `prefix part ${e}`));
  } else {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', " +
        'and must start and end with an alphanumeric character ' +
        `(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}') ` +
        "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push('name part must be no more than 63 characters');
  if (name.length > 0 && !qualifiedNameRe.test(name)) {
    errors.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', " +
        'and must start and end with an alphanumeric character ' +
        `(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}')`,
    );
  }
  return errors;
}

/** A label value: empty, or at most 63 characters of the qualified-name alphabet. */
export const labelValueErrors = formatCheck(
  63,
  `(${QUALIFIED_NAME})?`,
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', " +
    'and must start and end with an alphanumeric character',
  "'MyValue',  or 'my_value',  or '12345'",
);
