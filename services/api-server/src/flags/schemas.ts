import { Type } from 'typebox';
import type { Static } from 'typebox';
import { ClusterParams, namedSchema } from '../schemas.js';
import { REASON_MAX_LENGTH } from '@gsp/platform-contract';
import { SwitchRecordSchema } from './record.js';

export const ImpactSchema = Type.Object({
  platformId: Type.String({ description: 'what the typed confirmation (X-GSP-Confirm) must say' }),
  clustersAffected: Type.Integer({ description: 'clusters without an override of their own for the flag' }),
  tunnelsOpen: Type.Integer({ description: 'agent tunnels open now, across every cluster' }),
});

const Source = Type.Union([
  Type.Literal('env'),
  Type.Literal('cluster'),
  Type.Literal('platform'),
  Type.Literal('default'),
]);
const ScopeSchema = Type.Union([
  Type.Object({ type: Type.Literal('platform') }),
  Type.Object({ type: Type.Literal('cluster'), org: Type.String(), clusterId: Type.String() }),
]);
export const WriteResultSchema = namedSchema(
  'FlagWriteResult',
  Type.Object({
    key: Type.String(),
    scope: ScopeSchema,
    value: Type.Union([Type.Boolean(), Type.Null()]),
    effective: Type.Boolean(),
    source: Source,
    envPinned: Type.Boolean(),
    platformRecord: SwitchRecordSchema.ref,
    clusterRecord: Type.Optional(SwitchRecordSchema.ref),
  }),
);
export const FlagStateSchema = namedSchema(
  'FlagState',
  Type.Object({
    key: Type.String(),
    value: Type.Boolean({ description: 'the effective value at this scope' }),
    platformDefault: Type.Union([Type.Boolean(), Type.Null()]),
    clusterOverride: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    source: Source,
    envPinned: Type.Boolean(),
    platformRecord: SwitchRecordSchema.ref,
    clusterRecord: Type.Optional(SwitchRecordSchema.ref),
  }),
);
export const FlagListSchema = Type.Object({ flags: Type.Array(FlagStateSchema.ref) });
export const SetBody = Type.Object(
  {
    value: Type.Boolean(),
    reason: Type.Optional(
      Type.String({
        // The contract's bound, counted as reasonProblem and the console's dialogs count: in code points.
        minLength: 1,
        maxLength: REASON_MAX_LENGTH,
        description:
          `why, shown to tenants and kubectl users: 1 to ${REASON_MAX_LENGTH} characters (code points), at least one ` +
          'visible, none a control, bidirectional or other invisible character',
      }),
    ),
    expiresAt: Type.Optional(
      Type.String({
        description: 'RFC 3339, in the future, at most 30 days ahead: the value is cleared then, as a DELETE would',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SetBody = Static<typeof SetBody>;

export const FlagParams = Type.Object({ flag: Type.String({ maxLength: 253 }) });
export const ClusterFlagParams = Type.Object({ ...ClusterParams.properties, flag: Type.String({ maxLength: 253 }) });
