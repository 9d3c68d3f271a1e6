import { Type } from 'typebox';
import type { Static, TSchema, TString, TUnsafe } from 'typebox';
import {
  CLUSTER_ID_MAX_LENGTH,
  DNS_LABEL_MAX_LENGTH,
  DNS_LABEL_PATTERN,
  DNS_LABEL_RULE,
  NO_CONTROL_CHARACTERS_PATTERN,
  ORG_MAX_LENGTH,
  SUBJECT_MAX_LENGTH,
  SUBJECT_PATTERN,
  SUBJECT_RULE,
} from '@gsp/platform-contract';

/** A response schema that /openapi.json names: `schema` carries the `$id`, `ref` is what answers hold. */
export interface NamedSchema<T extends TSchema> {
  schema: T & { $id: string };
  ref: TUnsafe<Static<T>>;
}

/**
 * Names `schema` `id` in /openapi.json (`components.schemas`), so a client generated from the
 * document (the web console's types) has one type per shape. app.ts adds `schema` once
 * (its NAMED_SCHEMAS); answers refer to it with `ref`, typed as the schema. A reference may appear
 * twice in one answer (a flag's platform and cluster records), an inline `$id` may not.
 */
export function namedSchema<T extends TSchema>(id: string, schema: T): NamedSchema<T> {
  return { schema: { ...schema, $id: id }, ref: Type.Unsafe<Static<T>>(Type.Ref(id)) };
}

/** DNS-1123 label: tenant (org) names and cluster names. */
export const Dns1123Label = Type.String({
  minLength: 1,
  maxLength: DNS_LABEL_MAX_LENGTH,
  pattern: DNS_LABEL_PATTERN,
  // Said instead of the pattern when a value does not match (see @gsp/service-kit's problems).
  errorMessage: `must be a DNS label: ${DNS_LABEL_RULE}`,
});

/**
 * An identifier a caller names (a subject, an org, a cluster id): 1 to `maxLength` characters, no
 * control character (C0, DEL, C1). A subject becomes Impersonate-User at the cluster, where a line
 * break would start a header of the caller's choosing; PostgreSQL refuses a NUL.
 */
export function SafeIdentifier(maxLength: number, description: string): TString {
  return Type.String({
    minLength: 1,
    maxLength,
    pattern: NO_CONTROL_CHARACTERS_PATTERN,
    errorMessage: 'must not contain control characters',
    description,
  });
}

/** A member's subject, as the identity provider names the user (the token's `sub`). */
export const Subject = SafeIdentifier(
  SUBJECT_MAX_LENGTH,
  "the user's subject (the `sub` of their token); no control characters",
);

/**
 * A subject being made a member: one kubectl can use, so one the proxy can send to the cluster
 * as Impersonate-User (platform-contract's subject rule). Removal takes any `Subject`, so a member
 * written before the rule can still be removed.
 */
export const NewSubject = Type.String({
  minLength: 1,
  maxLength: SUBJECT_MAX_LENGTH,
  pattern: SUBJECT_PATTERN,
  errorMessage: `must follow the subject rule: ${SUBJECT_RULE}`,
  description: `the user's subject (the \`sub\` of their token): ${SUBJECT_RULE}`,
});

const Org = SafeIdentifier(ORG_MAX_LENGTH, 'the tenant; no control characters');
export const OrgParams = Type.Object({ org: Org });
export const ClusterParams = Type.Object({
  org: Org,
  id: SafeIdentifier(CLUSTER_ID_MAX_LENGTH, 'the cluster id; no control characters'),
});

/** An error answer as documented and serialized: `application/problem+json` with the Problem schema. */
export function problem(description: string, headers?: Record<string, TSchema>) {
  const content = { 'application/problem+json': { schema: Type.Ref('Problem') } };
  return { description, ...(headers ? { headers } : {}), content };
}

/** 503 while the database cannot answer; `Retry-After` says when to try again. */
export const unavailableResponse = problem(
  'the database is unavailable or too slow to answer; retry after `Retry-After` seconds',
  { 'Retry-After': Type.Integer({ description: 'seconds to wait before retrying' }) },
);

/** The errors of a route that needs a bearer token and a permission, and reads the database. */
export const problemResponses = {
  400: problem('bad input: `detail` says what is allowed, `errors` names each field'),
  401: problem('no bearer token, or one that is not valid (see `WWW-Authenticate`)'),
  403: problem('the caller does not have the permission'),
  404: problem('no such tenant, cluster, member or flag'),
  503: unavailableResponse,
};

/** The errors of a route that takes a JSON body, besides `problemResponses`. */
export const bodyProblemResponses = {
  413: problem('the body is larger than 16 KiB'),
  415: problem('the body is not `application/json`'),
};
