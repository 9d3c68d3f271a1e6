import { Type } from 'typebox';

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

export const OrgParams = Type.Object({ org: Type.String({ minLength: 1, maxLength: 253 }) });
export const ClusterParams = Type.Object({ org: Type.String({ minLength: 1, maxLength: 253 }), id: Type.String({ minLength: 1, maxLength: 64 }) });

export const problemResponses = {
  400: Type.Ref('Problem'),
  401: Type.Ref('Problem'),
  403: Type.Ref('Problem'),
  404: Type.Ref('Problem'),
};
