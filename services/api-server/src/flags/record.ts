import type { SwitchRecord } from '@gsp/platform-contract';
import { PLATFORM_ADMIN_ACTOR } from '@gsp/platform-contract';
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { parseInstant } from '../audit-log/instant.js';
import { namedSchema } from '../schemas.js';

/** How far ahead `expiresAt` may be: a switch left off longer should be a decision without a timer. */
export const EXPIRY_MAX_AHEAD_MS = 30 * 24 * 3600_000;

/** An RFC 3339 date-time with its offset, as epoch milliseconds; `undefined` when it is not one. */
export function parseRfc3339(text: string): number | undefined {
  const instant = parseInstant(text);
  return instant === undefined ? undefined : Number(instant.seconds) * 1000 + Math.floor(instant.micros / 1000);
}

/** `expiresAt` as epoch milliseconds, or why it is refused. */
export function parseExpiry(text: string, now: number): { at: number } | { problem: string } {
  const at = parseRfc3339(text);
  if (at === undefined)
    return { problem: 'expiresAt must be an RFC 3339 date-time with a time zone, such as 2026-12-01T18:00:00Z' };
  if (at <= now) return { problem: `expiresAt must be in the future (it is ${new Date(now).toISOString()} now)` };
  if (at > now + EXPIRY_MAX_AHEAD_MS)
    return {
      problem:
        'expiresAt must be at most 30 days ahead ' +
        `(no later than ${new Date(now + EXPIRY_MAX_AHEAD_MS).toISOString()})`,
    };
  return { at };
}

/**
 * A string or null as `type: ["string", "null"]` (OpenAPI 3.1), not an `anyOf`: the response
 * serializer checks `anyOf` branches with a validator on every request, which cost the flag GET
 * about 4 µs of its 21 with one record stored.
 */
const stringOrNull = (options: { description?: string; format?: string } = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

export const RecordSchema = Type.Object(
  {
    value: Type.Boolean(),
    actor: stringOrNull({ description: 'who set it; null when a platform admin set it and the caller is not one' }),
    actorName: Type.Optional(
      Type.String({
        description:
          'what the actor is called, as their identity provider said at their last console sign-in; ' +
          'absent when the platform does not know, or `actor` is null',
      }),
    ),
    actorRole: stringOrNull({
      description: '`platform-admin` or the tenant role the actor held; null for values set before records existed',
    }),
    setAt: Type.String({ format: 'date-time' }),
    reason: stringOrNull(),
    expiresAt: stringOrNull({
      format: 'date-time',
      description: 'when the value is cleared, as a DELETE would; null: until changed',
    }),
  },
  { description: 'a stored value: who set it, when, why and until when' },
);
export type RecordJson = Static<typeof RecordSchema>;

/** A record, or null where nothing is stored: `type: ["object", "null"]`, for the same reason. */
export const SwitchRecordSchema = namedSchema(
  'SwitchRecord',
  Type.Unsafe<RecordJson | null>({
    ...RecordSchema,
    type: ['object', 'null'],
    description: 'a stored value: who set it, when, why and until when; null where nothing is stored',
  }),
);

/** Records as each kind of caller sees them, built once per record (the flags client keeps records immutable). */
const rendered = new WeakMap<SwitchRecord, { admin?: RecordJson; tenant?: RecordJson }>();

/**
 * A record as the caller may see it. Platform admins' subjects are shown to platform admins
 * only: a tenant is told that "a platform admin" set it (`actor` null), and why.
 */
export function recordJson(record: SwitchRecord | undefined, callerIsPlatformAdmin: boolean): RecordJson | null {
  if (record === undefined) return null;
  let views = rendered.get(record);
  if (views === undefined) rendered.set(record, (views = {}));
  const view = callerIsPlatformAdmin ? 'admin' : 'tenant';
  return (views[view] ??= {
    value: record.value,
    // A value written before records existed has no role: not shown either, it may be a platform admin's.
    actor:
      (record.actorRole === PLATFORM_ADMIN_ACTOR || record.actorRole === null) && !callerIsPlatformAdmin
        ? null
        : record.actor,
    actorRole: record.actorRole,
    setAt: new Date(record.setAt).toISOString(),
    reason: record.reason,
    expiresAt: record.expiresAt === null ? null : new Date(record.expiresAt).toISOString(),
  });
}

/** `record` with its actor's name when `names` has it: a copy, as records are shared between answers. */
export function namedRecord(record: RecordJson | null, names: ReadonlyMap<string, string>): RecordJson | null {
  const name = record?.actor == null ? undefined : names.get(record.actor);
  return name === undefined || record === null ? record : { ...record, actorName: name };
}
