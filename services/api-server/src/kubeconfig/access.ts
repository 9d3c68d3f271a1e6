import { Type } from 'typebox';
import type { Evaluation } from '@gsp/flags-client';
import { cliAccessDisabledMessage, PLATFORM_ADMIN_ACTOR } from '@gsp/platform-contract';
import type { SwitchRecord } from '@gsp/platform-contract';
import { recordJson, SwitchRecordSchema } from '../flags/record.js';
import type { RecordJson } from '../flags/record.js';

/** What `record` is, said by the object that holds it: a reference to a named schema has no description of its own. */
export const RECORD_THAT_DECIDED = '`record`: the stored value that decided (source cluster or platform)';

/** A cluster's effective `cli_access.enabled`, as `GET .../access` answers it. */
export const CliAccessSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    source: Type.String(),
    envPinned: Type.Boolean(),
    record: SwitchRecordSchema.ref,
  },
  { description: `the cluster's effective cli_access.enabled; ${RECORD_THAT_DECIDED}` },
);

/** The same, with the sentence kubectl and the kubeconfig download are refused with (the cluster reads). */
export const CliAccessWithMessageSchema = Type.Object({
  ...CliAccessSchema.properties,
  // `type: [string, null]` rather than an anyOf, which the serializer would check on every row.
  message: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description:
      'null while enabled; otherwise why kubectl is refused (the kubeconfig download says it too), ' +
      'naming no platform admin',
  }),
});

export interface CliAccessJson {
  enabled: boolean;
  source: string;
  envPinned: boolean;
  record: RecordJson | null;
}

/**
 * Why kubectl access to the cluster is refused: the specification's sentence, then who switched it
 * off (a platform admin is not named), where, why and until when.
 */
export function cliAccessRefusal(clusterId: string, access: Evaluation): string {
  // The kill switch is a registry flag, never resolved by an OFREP provider.
  const source = access.source === 'provider' ? 'default' : access.source;
  return cliAccessDisabledMessage(clusterId, source, 'the API server', access.record);
}

/** Whether `recordJson` shows this record differently to platform admins (it may name one). */
export function mayNamePlatformAdmin(record: SwitchRecord): boolean {
  return record.actorRole === PLATFORM_ADMIN_ACTOR || record.actorRole === null;
}

/** The access state as a caller may see it: platform admins' names only for platform admins. */
export function cliAccessJson(access: Evaluation, callerIsPlatformAdmin: boolean): CliAccessJson {
  return {
    enabled: access.value,
    source: access.source,
    envPinned: access.envPinned,
    record: recordJson(access.record, callerIsPlatformAdmin),
  };
}

/** `cliAccessJson` with `message`: null while enabled, else the refusal kubectl gets. */
export function cliAccessWithMessage(
  clusterId: string,
  access: Evaluation,
  callerIsPlatformAdmin: boolean,
): CliAccessJson & { message: string | null } {
  return {
    ...cliAccessJson(access, callerIsPlatformAdmin),
    message: access.value ? null : cliAccessRefusal(clusterId, access),
  };
}
