import { Type } from 'typebox';
import type { Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { describeValidation, InvalidRequestError } from '@gsp/service-kit';
import {
  DNS_LABEL_MAX_LENGTH,
  DNS_LABEL_PATTERN,
  DNS_SUBDOMAIN_MAX_LENGTH,
  DNS_SUBDOMAIN_PATTERN,
} from '@gsp/platform-contract';
import type { FieldError, SchemaIssue } from '@gsp/service-kit';
import { BUILT_IN_ACTIONS } from '../contract.js';
import type { Profile } from './types.js';

/** What is wrong at one place of a profile document: an RFC 6901 pointer (`/ports/0/name`) and a sentence. */
export interface ProfileError {
  pointer: string;
  message: string;
}

const QUANTITY = '^[0-9]+(\\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$';
const NO_NUL = '^[^\\u0000]*$';
const QUANTITY_RE = new RegExp(QUANTITY);

const PROFILE_NAME_RULE =
  'must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit';

/** A profile's name: it names the ConfigMap, labels game servers and starts their generated names. */
export const ProfileName = Type.String({
  minLength: 1,
  maxLength: DNS_LABEL_MAX_LENGTH,
  pattern: DNS_LABEL_PATTERN,
  errorMessage: PROFILE_NAME_RULE,
  description: 'A DNS-1123 label (lower-case letters, digits and "-"), at most 63 characters.',
});

const Quantity = Type.String({
  maxLength: 64,
  pattern: QUANTITY,
  errorMessage: 'must be a Kubernetes quantity such as 500m, 2, 512Mi or 1.5Gi',
  description: 'A Kubernetes quantity: 500m, 2, 512Mi, 1.5Gi.',
});

/**
 * Environment variables, the same rules wherever they are given (a profile's `env`, a create's):
 * names as a shell takes them, values without NUL, which no process environment can hold.
 */
export const envVars = (options: { default?: object; description?: string } = {}) =>
  Type.Record(
    Type.String(),
    Type.String({ maxLength: 32768, pattern: NO_NUL, errorMessage: 'must not contain NUL characters' }),
    {
      ...options,
      maxProperties: 100,
      propertyNames: {
        maxLength: 256,
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        errorMessage: 'is not a valid variable name: letters, digits and "_", not starting with a digit',
      },
    },
  );

/** Kubernetes' bound on a quantity: no quantity may represent a number greater than 2^63-1. */
export const MAX_QUANTITY = 2n ** 63n - 1n;

const QUANTITY_UNITS: Readonly<Record<string, { times: bigint; per: bigint }>> = {
  '': { times: 1n, per: 1n },
  m: { times: 1n, per: 1000n },
  k: { times: 10n ** 3n, per: 1n },
  M: { times: 10n ** 6n, per: 1n },
  G: { times: 10n ** 9n, per: 1n },
  T: { times: 10n ** 12n, per: 1n },
  P: { times: 10n ** 15n, per: 1n },
  E: { times: 10n ** 18n, per: 1n },
  Ki: { times: 2n ** 10n, per: 1n },
  Mi: { times: 2n ** 20n, per: 1n },
  Gi: { times: 2n ** 30n, per: 1n },
  Ti: { times: 2n ** 40n, per: 1n },
  Pi: { times: 2n ** 50n, per: 1n },
  Ei: { times: 2n ** 60n, per: 1n },
};

/**
 * What is wrong with `quantity` (of the QUANTITY syntax) beyond its syntax: a value above
 * 2^63-1, which Kubernetes cannot represent. Exact, in integers: no rounding lets one through.
 */
export function quantityError(quantity: string): string | undefined {
  const match = /^([0-9]+)(?:\.([0-9]+))?([a-zA-Z]*)$/.exec(quantity);
  const unit = match
    ? Object.hasOwn(QUANTITY_UNITS, match[3] ?? '')
      ? QUANTITY_UNITS[match[3] ?? '']
      : undefined
    : undefined;
  if (!match || unit === undefined) return undefined;
  const fraction = match[2] ?? '';
  const scaled = BigInt(`${match[1]}${fraction}`) * unit.times;
  const per = 10n ** BigInt(fraction.length) * unit.per;
  // value = scaled / per; it exceeds the bound when scaled > bound * per.
  if (scaled > MAX_QUANTITY * per)
    return 'is larger than Kubernetes can represent: a quantity may not exceed 2^63-1 (about 8Ei of memory)';
  return undefined;
}

/**
 * Where Kubernetes mounts a pod's service-account token (`/var/run/secrets/kubernetes.io/serviceaccount`)
 * and other projected credentials (`/var/run/secrets/tokens`, cloud identity tokens); `/run` is
 * where `/var/run` points in most images.
 */
const SECRETS_DIRS = ['/var/run/secrets', '/run/secrets'];

/**
 * What is wrong with `mountPath` beyond its syntax: a `..` segment (the path would not say where
 * it mounts), or a mount at, under or above a secrets directory, which would hide the
 * service-account token from the game or put the game's files in its place.
 */
export function mountPathError(mountPath: string): string | undefined {
  const segments = mountPath.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return 'must not contain ".." segments';
  const normal = `/${segments.join('/')}`;
  for (const dir of SECRETS_DIRS) {
    const at = normal === dir || normal.startsWith(`${dir}/`) || dir.startsWith(normal === '/' ? '/' : `${normal}/`);
    if (at) return `must not be at, under or above ${dir}, where Kubernetes mounts the service-account token`;
  }
  return undefined;
}

/** An argv: run as is, without a shell. NUL cannot reach a process, so it is refused here rather than there. */
const Argv = Type.Array(
  Type.String({ minLength: 1, maxLength: 4096, pattern: NO_NUL, errorMessage: 'must not contain NUL characters' }),
  { minItems: 1, maxItems: 64, description: 'argv, run without a shell: 1 to 64 non-empty arguments.' },
);

const Port = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 15,
      pattern: DNS_LABEL_PATTERN,
      errorMessage: 'must be a DNS-1123 label of at most 15 characters, as Kubernetes port names are',
    }),
    containerPort: Type.Integer({ minimum: 1, maximum: 65535 }),
    protocol: Type.Optional(
      Type.Enum(['UDP', 'TCP', 'TCPUDP'], { default: 'UDP', description: 'UDP unless given, as in Agones.' }),
    ),
  },
  { additionalProperties: false },
);

const Compute = Type.Object(
  { cpu: Type.Optional(Quantity), memory: Type.Optional(Quantity) },
  { additionalProperties: false },
);

const Action = Type.Object(
  {
    command: Argv,
    timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, default: 30 })),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

/**
 * A profile as PUT and as stored in its ConfigMap's `profile.yaml` (the name comes from the URL,
 * or the ConfigMap's label). Unknown fields are refused everywhere, so a typo never passes silently.
 */
export const ProfileBody = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 500 })),
    image: Type.String({
      minLength: 1,
      maxLength: 512,
      pattern: '^[^\\s\\u0000-\\u001f\\u007f]+$',
      errorMessage: 'must be an image reference, without spaces or control characters',
    }),
    ports: Type.Array(Port, { minItems: 1, maxItems: 16 }),
    env: Type.Optional(envVars({ default: {} })),
    resources: Type.Optional(
      Type.Object(
        { requests: Type.Optional(Compute), limits: Type.Optional(Compute) },
        { additionalProperties: false },
      ),
    ),
    health: Type.Optional(
      Type.Object(
        {
          disabled: Type.Optional(Type.Boolean()),
          initialDelaySeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400 })),
          periodSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400 })),
          failureThreshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
        },
        { additionalProperties: false, description: "Agones' spec.health." },
      ),
    ),
    storage: Type.Optional(
      Type.Object(
        {
          size: Quantity,
          storageClassName: Type.Optional(
            Type.String({
              maxLength: DNS_SUBDOMAIN_MAX_LENGTH,
              pattern: DNS_SUBDOMAIN_PATTERN,
              errorMessage: 'must be a DNS-1123 subdomain, as storage class names are',
            }),
          ),
          mountPath: Type.String({
            maxLength: 1024,
            pattern: '^/[^:\\u0000-\\u001f\\u007f]*$',
            errorMessage: 'must be an absolute path, without ":" or control characters',
          }),
        },
        { additionalProperties: false, description: 'A PersistentVolumeClaim per game server, owned by it.' },
      ),
    ),
    players: Type.Optional(
      Type.Object({ initialCapacity: Type.Integer({ minimum: 0, maximum: 10000 }) }, { additionalProperties: false }),
    ),
    restartCommand: Type.Optional(Argv),
    actions: Type.Optional(
      Type.Record(Type.String(), Action, {
        maxProperties: 32,
        propertyNames: {
          maxLength: 63,
          pattern: '^[a-z][a-z0-9-]{0,62}$',
          errorMessage:
            'is not a valid action name: lower-case letters, digits and "-", ' +
            'starting with a letter, at most 63 characters',
        },
        default: {},
        description:
          'Named command actions, run with POST .../actions/{name}; ' +
          `not ${BUILT_IN_ACTIONS.join(', ')}, which are built in.`,
      }),
    ),
    snapshot: Type.Optional(
      Type.Object(
        {
          preCommand: Type.Optional(Argv),
          postCommand: Type.Optional(Argv),
          keep: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 1000,
              description: 'Ready snapshots kept per game server; older ones are deleted once a newer one is ready.',
            }),
          ),
        },
        { additionalProperties: false, description: 'Hooks run around a snapshot, and how many snapshots to keep.' },
      ),
    ),
  },
  { additionalProperties: false },
);

export type ProfileBodyType = Static<typeof ProfileBody>;

/** The profile's document as it goes out: in a response, with its name. */
export const ProfileView = Type.Object(
  { name: ProfileName, ...ProfileBody.properties },
  { additionalProperties: false },
);

const checkBody = Compile(ProfileBody);
const checkName = Compile(ProfileName);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** `key` as one segment of an RFC 6901 pointer. */
export const pointerSegment = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** An issue of our own, worded like a schema's: describeValidation puts the field's name before `message`. */
const issue = (instancePath: string, keyword: string, message: string): SchemaIssue => ({
  keyword,
  instancePath,
  schemaPath: '#',
  params: {},
  message,
});

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The amount a quantity of the QUANTITY syntax stands for; near enough to compare two. */
export function quantityAmount(quantity: string): number {
  const match = /^([0-9.]+)(.*)$/.exec(quantity);
  return Number(match?.[1]) * (UNITS[match?.[2] ?? ''] ?? Number.NaN);
}

/** What a schema cannot say: each rule looks only at parts that have the right shape, so junk cannot make it throw. */
function ruleIssues(doc: Record<string, unknown>): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  if (Array.isArray(doc.ports)) {
    const seen = new Map<string, number>();
    doc.ports.forEach((port: unknown, i) => {
      if (!isObject(port) || typeof port.name !== 'string') return;
      const first = seen.get(port.name);
      if (first === undefined) seen.set(port.name, i);
      else
        issues.push(
          issue(
            `/ports/${i}/name`,
            'uniquePortName',
            `must be unique: ports[${first}] is also named ${JSON.stringify(port.name)}`,
          ),
        );
    });
  }
  if (isObject(doc.actions)) {
    for (const name of Object.keys(doc.actions)) {
      if ((BUILT_IN_ACTIONS as readonly string[]).includes(name)) {
        const builtIn = BUILT_IN_ACTIONS.join(', ');
        const message = `is a built-in action and cannot be redefined (the built-in actions are ${builtIn})`;
        issues.push(issue(`/actions/${pointerSegment(name)}`, 'builtInAction', message));
      }
    }
  }
  const quantities: [string, unknown][] = [];
  const storage = isObject(doc.storage) ? doc.storage : {};
  quantities.push(['/storage/size', storage.size]);
  if (typeof storage.mountPath === 'string') {
    const error = mountPathError(storage.mountPath);
    if (error !== undefined) issues.push(issue('/storage/mountPath', 'secretsMount', error));
  }
  const resources = isObject(doc.resources) ? doc.resources : {};
  for (const kind of ['requests', 'limits'] as const) {
    const compute = resources[kind];
    if (isObject(compute))
      for (const resource of ['cpu', 'memory'] as const)
        quantities.push([`/resources/${kind}/${resource}`, compute[resource]]);
  }
  for (const [pointer, value] of quantities) {
    if (typeof value !== 'string' || !QUANTITY_RE.test(value)) continue;
    const error = quantityError(value);
    if (error !== undefined) issues.push(issue(pointer, 'quantityRange', error));
  }
  const { requests, limits } = resources;
  if (isObject(requests) && isObject(limits)) {
    for (const resource of ['cpu', 'memory']) {
      const request = requests[resource];
      const limit = limits[resource];
      if (typeof request !== 'string' || typeof limit !== 'string') continue;
      // Kubernetes refuses the pod otherwise; saying so now beats a game server stuck in Error.
      if (quantityAmount(request) > quantityAmount(limit)) {
        issues.push(
          issue(
            `/resources/requests/${resource}`,
            'requestOverLimit',
            `must not exceed resources.limits.${resource} (${limit})`,
          ),
        );
      }
    }
  }
  return issues;
}

/**
 * Everything wrong with a profile document, as schema issues (the shape Fastify and
 * describeValidation know): the schema's, then the rules across fields.
 */
export function profileIssues(doc: unknown): SchemaIssue[] {
  // One issue per bad key says it already; the summary naming them all would repeat it.
  const issues = checkBody.Check(doc) ? [] : checkBody.Errors(doc).filter((i) => i.keyword !== 'propertyNames');
  return isObject(doc) ? [...issues, ...ruleIssues(doc)] : issues;
}

/** The profile with its defaults filled in (protocol UDP, timeoutSeconds 30, env and actions empty). */
export function toProfile(name: string, body: ProfileBodyType): Profile {
  const { env, actions, ports, ...rest } = body;
  return {
    name,
    ...rest,
    ports: ports.map((port) => ({ ...port, protocol: port.protocol ?? 'UDP' })),
    env: env ?? {},
    actions: Object.fromEntries(
      Object.entries(actions ?? {}).map(([key, action]) => [
        key,
        { ...action, timeoutSeconds: action.timeoutSeconds ?? 30 },
      ]),
    ),
  };
}

/** What is wrong with `name` as a profile's name, after the name itself; undefined when nothing is. */
export function nameError(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 63) return 'must be at most 63 characters long';
  return checkName.Check(name) ? undefined : PROFILE_NAME_RULE;
}

/**
 * Validates a profile named `name` whose document is `doc` (a PUT body, or a ConfigMap's parsed
 * `profile.yaml`): the profile with its defaults, or each error with its pointer. Never throws.
 */
export function validateProfile(name: string, doc: unknown): { profile: Profile } | { errors: ProfileError[] } {
  const badName = nameError(name);
  if (badName !== undefined)
    return { errors: [{ pointer: '', message: `the profile name ${JSON.stringify(name)} ${badName}` }] };
  const issues = profileIssues(doc);
  if (issues.length > 0) {
    const errors = describeValidation(issues, 'body', ProfileBody);
    // Not only a body: the same document is read from ConfigMaps.
    return {
      errors: errors.map((e) => ({
        pointer: e.pointer.slice(1),
        message: e.detail.replace(/^the body /, 'the profile '),
      })),
    };
  }
  return { profile: toProfile(name, doc as ProfileBodyType) };
}

/** Profile errors as a problem's `errors` members, in the body. */
export function fieldErrors(errors: readonly ProfileError[]): FieldError[] {
  return errors.map((e) => ({ in: 'body', pointer: `#${e.pointer}`, detail: e.message }));
}

/** The 400 for errors found outside the schema (a create's labels, say), worded like the schema's. */
export function invalidBody(errors: readonly ProfileError[]): InvalidRequestError {
  return new InvalidRequestError(fieldErrors(errors));
}
