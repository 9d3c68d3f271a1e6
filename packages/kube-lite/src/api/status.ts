/**
 * `metav1.Status` errors with the messages, reasons and details the real API server uses.
 */
import { qualifiedResource, type ResourceType } from './registry.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): Status {
    // Fields in the API server's order; an empty reason (StatusReasonUnknown, as for errors that
    // are not API statuses) is left out.
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

function details(type: ResourceType, name: string | undefined): StatusDetails {
  const d: StatusDetails = {};
  if (name !== undefined) d.name = name;
  if (type.group) d.group = type.group;
  d.kind = type.plural;
  return d;
}

export function notFound(type: ResourceType, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(type)} "${name}" not found`, details(type, name));
}

export function alreadyExists(type: ResourceType, name: string): StatusError {
  return new StatusError(
    409,
    'AlreadyExists',
    `${qualifiedResource(type)} "${name}" already exists`,
    details(type, name),
  );
}

export function conflict(
  type: ResourceType,
  name: string,
  why = 'the object has been modified; please apply your changes to the latest version and try again',
): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": ${why}`,
    details(type, name),
  );
}

export function invalid(
  type: ResourceType,
  name: string,
  causes: { field: string; value: unknown; detail: string; reason?: string }[],
): StatusError {
  const kind = type.kind;
  const qualifiedKind = type.group ? `${kind}.${type.group}` : kind;
  const describe = (c: (typeof causes)[number]): string =>
    c.reason === 'FieldValueRequired'
      ? `Required value${c.detail ? `: ${c.detail}` : ''}`
      : c.reason === 'FieldValueNotSupported'
        ? `Unsupported value: ${JSON.stringify(c.value)}: supported values: ${c.detail}`
        : c.reason === 'FieldValueDuplicate'
          ? `Duplicate value: ${JSON.stringify(c.value)}${c.detail ? `: ${c.detail}` : ''}`
          : c.reason === 'FieldValueForbidden'
            ? `Forbidden${c.detail ? `: ${c.detail}` : ''}`
            : `Invalid value: ${JSON.stringify(c.value)}: ${c.detail}`;
  const parts = causes.map((c) => `${c.field}: ${describe(c)}`);
  const message = `${qualifiedKind} "${name}" is invalid: ${parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`}`;
  const d: StatusDetails = { name };
  if (type.group) d.group = type.group;
  d.kind = kind;
  d.causes = causes.map((c) => ({
    reason: c.reason ?? 'FieldValueInvalid',
    message: describe(c),
    field: c.field,
  }));
  return new StatusError(422, 'Invalid', message, d);
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function methodNotAllowed(message: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

/** A PATCH content type the resource does not take (custom resources refuse strategic merge). */
export function unsupportedMediaType(custom: boolean): StatusError {
  const patches = 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';
  const accepted = custom ? patches : `${patches}, application/strategic-merge-patch+json`;
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
  );
}

export function forbiddenNamespaceTerminating(type: ResourceType, name: string, namespace: string): StatusError {
  return new StatusError(
    403,
    'Forbidden',
    `${qualifiedResource(type)} "${name}" is forbidden: ` +
      `unable to create new content in namespace ${namespace} because it is being terminated`,
    {
      ...details(type, name),
      causes: [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    },
  );
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function successStatus(type: ResourceType, name: string, uid: string | undefined): Status {
  const d = details(type, name);
  if (uid) d.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: d, code: 200 };
}
