/**
 * Name validators with the rules and messages of k8s.io/apimachinery/pkg/util/validation.
 */
import type { NameRule } from './registry.js';

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';

const dns1123LabelRe = new RegExp(`^${DNS1123_LABEL}$`);
const dns1123SubdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const dns1035LabelRe = new RegExp(`^${DNS1035_LABEL}$`);

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;

/** Returns the problems with `value` as a DNS-1123 label (RFC 1123), empty when valid. */
export function dns1123LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errors.push(`must be no more than ${DNS1123_LABEL_MAX} characters`);
  if (!dns1123LabelRe.test(value)) {
    errors.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character " +
        `(e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS1123_LABEL}')`,
    );
  }
  return errors;
}

/** Returns the problems with `value` as a DNS-1123 subdomain, empty when valid. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errors.push(`must be no more than ${DNS1123_SUBDOMAIN_MAX} characters`);
  if (!dns1123SubdomainRe.test(value)) {
    errors.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN}')`,
    );
  }
  return errors;
}

/** Returns the problems with `value` as a DNS-1035 label (services), empty when valid. */
export function dns1035LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > DNS1123_LABEL_MAX) errors.push(`must be no more than ${DNS1123_LABEL_MAX} characters`);
  if (!dns1035LabelRe.test(value)) {
    errors.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character " +
        `(e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL}')`,
    );
  }
  return errors;
}

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
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push('name part must be no more than 63 characters');
  if (name.length > 0 && !qualifiedNameRe.test(name)) {
    errors.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}')`,
    );
  }
  return errors;
}

/** A label value: empty, or at most 63 characters of the qualified-name alphabet. */
export function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (value.length > 0 && !qualifiedNameRe.test(value)) {
    errors.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        `(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(${QUALIFIED_NAME})?')`,
    );
  }
  return errors;
}
