import { Type } from 'typebox';
import type { TString } from 'typebox';
import { NO_CONTROL_CHARACTERS_PATTERN } from '@gsp/platform-contract';

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    requestId: Type.String(),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

/** DNS-1123 label: tenant (org) names and cluster names. */
export const Dns1123Label = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' });

/**
 * An identifier a caller names (a subject, an org, a cluster id): 1 to `maxLength` characters, no
 * control character (C0, DEL, C1). A subject becomes Impersonate-User at the cluster, where a line
 * break would start a header of the caller's choosing; PostgreSQL refuses a NUL.
 */
export function SafeIdentifier(maxLength: number, description: string): TString {
  return Type.String({ minLength: 1, maxLength, pattern: NO_CONTROL_CHARACTERS_PATTERN, description });
}

/** A member's subject, as the identity provider names the user (the token's `sub`). */
export const Subject = SafeIdentifier(255, "the user's subject (the `sub` of their token); no control characters");

const Org = SafeIdentifier(253, 'the tenant; no control characters');
export const OrgParams = Type.Object({ org: Org });
export const ClusterParams = Type.Object({ org: Org, id: SafeIdentifier(64, 'the cluster id; no control characters') });

export const problemResponses = {
  400: Type.Ref('Problem'),
  401: Type.Ref('Problem'),
  403: Type.Ref('Problem'),
  404: Type.Ref('Problem'),
};
