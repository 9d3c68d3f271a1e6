import fc from 'fast-check';
import t from 'tap';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { MAX_QUANTITY, mountPathError, quantityError, validateProfile } from '../src/profiles/schema.js';
import { profileConfigMap, readProfileConfigMap } from '../src/profiles/store.js';
import { BUILT_IN_ACTIONS } from '../src/contract.js';
import type { Profile } from '../src/profiles/types.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** Any text but NUL, astral and odd characters included: what a YAML round trip must keep. */
const text = (minLength: number, maxLength: number) =>
  fc.string({ unit: 'binary', minLength, maxLength }).filter((s) => !s.includes('\u0000'));
const argv = fc.array(text(1, 30), { minLength: 1, maxLength: 5 });
const quantity = fc.stringMatching(/^[0-9]{1,4}(\.[0-9]{1,3})?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/);
const compute = fc.record({ cpu: quantity, memory: quantity }, { requiredKeys: [] });

/**
 * Profile documents the schema accepts, every field exercised; `protocol` and friends sometimes left to their
 * defaults.
 */
const document = fc.record(
  {
    description: text(0, 100),
    image: fc.stringMatching(/^[a-z0-9./:@_-]{1,80}$/),
    ports: fc.uniqueArray(
      fc.record(
        {
          name: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$/),
          containerPort: fc.integer({ min: 1, max: 65535 }),
          protocol: fc.constantFrom('UDP', 'TCP', 'TCPUDP'),
        },
        { requiredKeys: ['name', 'containerPort'] },
      ),
      { minLength: 1, maxLength: 16, selector: (p) => p.name },
    ),
    env: fc.dictionary(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/), text(0, 40), { maxKeys: 10 }),
    // The same amounts on both sides: requests may not exceed limits.
    resources: compute.chain((c) => fc.constantFrom({ requests: c }, { limits: c }, { requests: c, limits: c })),
    health: fc.record(
      {
        disabled: fc.boolean(),
        initialDelaySeconds: fc.integer({ min: 1, max: 86400 }),
        periodSeconds: fc.integer({ min: 1, max: 86400 }),
        failureThreshold: fc.integer({ min: 1, max: 10000 }),
      },
      { requiredKeys: [] },
    ),
    storage: fc.record(
      {
        size: quantity,
        storageClassName: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?(\.[a-z0-9]{1,5}){0,2}$/),
        mountPath: fc.stringMatching(/^\/[a-z0-9 ._/-]{0,40}$/).filter((p) => mountPathError(p) === undefined),
      },
      { requiredKeys: ['size', 'mountPath'] },
    ),
    players: fc.record({ initialCapacity: fc.integer({ min: 0, max: 10000 }) }),
    restartCommand: argv,
    actions: fc.dictionary(
      fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((n) => !(BUILT_IN_ACTIONS as readonly string[]).includes(n)),
      fc.record(
        { command: argv, timeoutSeconds: fc.integer({ min: 1, max: 3600 }), description: text(0, 50) },
        { requiredKeys: ['command'] },
      ),
      { maxKeys: 5 },
    ),
    snapshot: fc.record(
      { preCommand: argv, postCommand: argv, keep: fc.integer({ min: 1, max: 1000 }) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['image', 'ports'] },
);
const profileName = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);

/** The ConfigMap as a client reads it back: through JSON, as the API server stores it. */
function roundTrip(configMap: V1ConfigMap): V1ConfigMap {
  return JSON.parse(JSON.stringify(configMap)) as V1ConfigMap;
}

function valid(name: string, doc: unknown): Profile {
  const result = validateProfile(name, doc);
  if ('errors' in result) throw new Error(`a generated profile was refused: ${JSON.stringify(result.errors)}`);
  return result.profile;
}

t.test(
  'any valid profile survives being stored: validate, write its ConfigMap, read it back, validate again',
  async (t) => {
    fc.assert(
      fc.property(profileName, document, (name, doc) => {
        const profile = valid(name, doc);
        const read = readProfileConfigMap(roundTrip(profileConfigMap(profile, 'default')));
        if (!('profile' in read)) throw new Error(`read back as invalid: ${JSON.stringify(read.invalid.errors)}`);
        t.same(read.profile, profile);
      }),
      { numRuns: RUNS },
    );
  },
);

t.test('validation fills in the defaults and keeps everything else as given', async (t) => {
  fc.assert(
    fc.property(profileName, document, (name, doc) => {
      const profile = valid(name, doc);
      t.equal(profile.name, name);
      t.same(
        profile.ports.map((p) => p.protocol),
        doc.ports.map((p) => p.protocol ?? 'UDP'),
      );
      t.same(profile.env, doc.env ?? {});
      for (const [action, spec] of Object.entries(profile.actions))
        t.equal(spec.timeoutSeconds, doc.actions?.[action]?.timeoutSeconds ?? 30);
      // Validating what validation returned changes nothing.
      const { name: _name, ...again } = profile;
      t.same(valid(name, again), profile);
    }),
    { numRuns: 100 },
  );
});

/** A pointer that starts at the root, or the root itself, in RFC 6901 form. */
const POINTER = /^(\/([^~/]|~[01])*)*$/;

function checkErrors(errors: { pointer: string; message: string }[]): void {
  if (errors.length === 0) throw new Error('refused without a reason');
  for (const e of errors) {
    if (!POINTER.test(e.pointer)) throw new Error(`not a JSON pointer: ${JSON.stringify(e.pointer)}`);
    if (typeof e.message !== 'string' || e.message === '') throw new Error(`no message at ${e.pointer}`);
  }
}

/** Values of every shape, objects with the keys that hurt careless code among them. */
const junk = fc.oneof(
  fc.anything({
    maxDepth: 4,
    withObjectString: true,
    withNullPrototype: true,
    withBoxedValues: true,
    withSparseArray: true,
  }),
  fc.dictionary(
    fc.constantFrom('image', 'ports', 'env', 'actions', 'resources', 'storage', '__proto__', 'constructor', 'toString'),
    fc.anything({ maxDepth: 3 }),
  ),
);

t.test('junk never makes validation throw: it yields errors, each with a JSON pointer and a sentence', async () => {
  fc.assert(
    fc.property(fc.oneof(profileName, fc.string()), junk, (name, doc) => {
      const result = validateProfile(name, doc);
      if ('errors' in result) checkErrors(result.errors);
    }),
    { numRuns: RUNS },
  );
});

t.test(
  'a valid profile with one field replaced by junk is refused with a pointer into that field, or accepted',
  async () => {
    const fields = [
      'image',
      'ports',
      'env',
      'resources',
      'health',
      'storage',
      'players',
      'restartCommand',
      'actions',
      'snapshot',
      'description',
    ];
    fc.assert(
      fc.property(
        profileName,
        document,
        fc.constantFrom(...fields),
        fc.anything({ maxDepth: 3 }),
        (name, doc, field, value) => {
          const result = validateProfile(name, { ...doc, [field]: value });
          if ('profile' in result) return;
          checkErrors(result.errors);
          for (const e of result.errors) {
            // A port's name may clash with another's: reported at the later port.
            if (!e.pointer.startsWith(`/${field}`))
              throw new Error(`${field} was broken but ${e.pointer} was blamed: ${e.message}`);
          }
        },
      ),
      { numRuns: RUNS },
    );
  },
);

/** Pieces of YAML, its tricky syntax among them, to be put together any which way. */
const YAML_PIECES = [
  'image: x\n',
  'ports:\n',
  '  - ',
  'name: p',
  'containerPort: 1',
  '&a ',
  '*a',
  '[',
  ']',
  '{',
  '}',
  '? ',
  ': ',
];
YAML_PIECES.push('!!binary ', '---\n', '<<: *a\n', '\t', '"', "'", '%YAML 1.1\n');

t.test('any profile.yaml text, however broken, is read without throwing', async () => {
  const yamlish = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.array(fc.constantFrom(...YAML_PIECES), { maxLength: 30 }).map((parts) => parts.join('')),
  );
  fc.assert(
    fc.property(yamlish, (yaml) => {
      const read = readProfileConfigMap({
        metadata: { name: 'gsp-profile-p', labels: { 'gsp.dev/profile': 'p' } },
        data: { 'profile.yaml': yaml },
      });
      if ('invalid' in read) checkErrors(read.invalid.errors);
    }),
    { numRuns: RUNS },
  );
});

t.test('a profile.yaml of aliases cannot blow up into a huge document', async (t) => {
  // Nine levels of nine aliases each: 9^9 strings once expanded.
  const anchor = (i: number) => String.fromCharCode(97 + i);
  const levels = Array.from(
    { length: 8 },
    (_, i) =>
      `${anchor(i + 1)}: &${anchor(i + 1)} [${Array(9)
        .fill(`*${anchor(i)}`)
        .join(',')}]`,
  );
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...levels].join('\n');
  const read = readProfileConfigMap({
    metadata: { name: 'gsp-profile-p', labels: { 'gsp.dev/profile': 'p' } },
    data: { 'profile.yaml': bomb },
  });
  t.ok('invalid' in read);
  if ('invalid' in read)
    t.match(read.invalid.errors, [{ pointer: '', message: /^profile\.yaml is not valid YAML: .*alias/i }]);
});

function errorsOf(doc: unknown, name = 'p'): Record<string, string> {
  const result = validateProfile(name, doc);
  return 'errors' in result ? Object.fromEntries(result.errors.map((e) => [e.pointer, e.message])) : {};
}

const BASE = { image: 'x', ports: [{ name: 'p', containerPort: 1 }] };

t.test('each field says what it allows', async (t) => {
  t.same(errorsOf({ ...BASE, resources: { requests: { cpu: '1.5 cores', memory: '1e3' } } }), {
    '/resources/requests/cpu': 'resources.requests.cpu must be a Kubernetes quantity such as 500m, 2, 512Mi or 1.5Gi',
    '/resources/requests/memory':
      'resources.requests.memory must be a Kubernetes quantity such as 500m, 2, 512Mi or 1.5Gi',
  });
  t.same(errorsOf({ ...BASE, storage: { size: '5Gi', mountPath: 'data', storageClassName: 'Fast_SSD' } }), {
    '/storage/mountPath': 'storage.mountPath must be an absolute path, without ":" or control characters',
    '/storage/storageClassName': 'storage.storageClassName must be a DNS-1123 subdomain, as storage class names are',
  });
  t.same(errorsOf({ ...BASE, ports: [{ name: 'a-very-long-port-name', containerPort: 1 }] }), {
    '/ports/0/name': 'ports[0].name must be at most 15 characters long',
  });
  t.same(errorsOf({ ...BASE, env: { '1ST': 'x', OK_2: 'y' } }), {
    '/env/1ST': 'env.1ST is not a valid variable name: letters, digits and "_", not starting with a digit',
  });
  t.same(errorsOf({ ...BASE, actions: { Save: { command: ['x'] }, backup: { command: [], timeoutSeconds: 3601 } } }), {
    '/actions/Save':
      'actions.Save is not a valid action name: lower-case letters, digits and "-", ' +
      'starting with a letter, at most 63 characters',
    '/actions/backup/command': 'actions.backup.command must have at least 1 item',
    '/actions/backup/timeoutSeconds': 'actions.backup.timeoutSeconds must be at most 3600',
  });
  t.same(errorsOf({ ...BASE, image: 'nginx latest', restartCommand: [''] }), {
    '/image': 'image must be an image reference, without spaces or control characters',
    '/restartCommand/0': 'restartCommand[0] must not be empty',
  });
  t.same(errorsOf({ ...BASE, health: { periodSeconds: 0 } }), {
    '/health/periodSeconds': 'health.periodSeconds must be at least 1',
  });
  t.same(errorsOf({ ...BASE, snapshot: { keep: 0 } }), { '/snapshot/keep': 'snapshot.keep must be at least 1' });
  t.same(errorsOf({ ...BASE, snapshot: { keep: 1001 } }), { '/snapshot/keep': 'snapshot.keep must be at most 1000' });
  t.same(errorsOf({ ...BASE, snapshot: { keep: 2.5 } }), { '/snapshot/keep': 'snapshot.keep must be an integer' });
  t.same(errorsOf('image: x'), { '': 'the profile must be an object' });
  t.same(errorsOf(BASE, 'Not_A_Label'), {
    '':
      'the profile name "Not_A_Label" must be a DNS-1123 label: lower-case letters, digits and "-", ' +
      'starting and ending with a letter or digit',
  });
});

t.test('requests within limits pass, whatever the units', async (t) => {
  t.same(
    errorsOf({
      ...BASE,
      resources: { requests: { cpu: '500m', memory: '1000Mi' }, limits: { cpu: '0.5', memory: '1Gi' } },
    }),
    {},
  );
  t.same(
    errorsOf({ ...BASE, resources: { requests: { memory: '1G' }, limits: { memory: '1Gi' } } }),
    {},
    '10^9 < 2^30',
  );
  t.same(errorsOf({ ...BASE, resources: { requests: { memory: '1Gi' }, limits: { memory: '1G' } } }), {
    '/resources/requests/memory': 'resources.requests.memory must not exceed resources.limits.memory (1G)',
  });
});

t.test('a ConfigMap is read by its label and must be named after it', async (t) => {
  const data = { 'profile.yaml': 'image: x\nports: [{name: p, containerPort: 1}]\n' };
  const read = (name: string, labels: Record<string, string>, d: Record<string, string> = data) =>
    readProfileConfigMap({ metadata: { name, labels }, data: d });
  t.match(read('gsp-profile-p', { 'gsp.dev/profile': 'p' }), { profile: { name: 'p', image: 'x' } });
  t.same(read('elsewhere', { 'gsp.dev/profile': 'p' }), {
    invalid: {
      name: 'p',
      configMap: 'elsewhere',
      errors: [{ pointer: '', message: 'the ConfigMap of profile p must be named gsp-profile-p' }],
    },
  });
  t.match(read('gsp-profile-P', { 'gsp.dev/profile': 'P' }), {
    invalid: { errors: [{ message: /^the label gsp\.dev\/profile \("P"\) must be a DNS-1123 label/ }] },
  });
  t.match(read('gsp-profile-p', { 'gsp.dev/profile': 'p' }, {}), {
    invalid: { errors: [{ message: 'the ConfigMap has no data key profile.yaml' }] },
  });
  t.match(read('gsp-profile-p', { 'gsp.dev/profile': 'p' }, { 'profile.yaml': 'image: x\nimage: y\n' }), {
    invalid: {
      errors: [
        { pointer: '', message: /^profile\.yaml is not valid YAML: Map keys must be unique at line 2, column 1$/ },
      ],
    },
  });
  t.match(
    read(
      'gsp-profile-p',
      { 'gsp.dev/profile': 'p' },
      { 'profile.yaml': JSON.stringify({ image: 'x', ports: [{ name: 'p', containerPort: 1 }] }) },
    ),
    {
      profile: { name: 'p' },
    },
    'JSON is YAML',
  );
});

const UNIT_FACTORS: [string, bigint][] = [
  ['', 1n],
  ['k', 10n ** 3n],
  ['M', 10n ** 6n],
  ['G', 10n ** 9n],
  ['T', 10n ** 12n],
  ['P', 10n ** 15n],
  ['E', 10n ** 18n],
  ['Ki', 2n ** 10n],
  ['Mi', 2n ** 20n],
  ['Gi', 2n ** 30n],
  ['Ti', 2n ** 40n],
  ['Pi', 2n ** 50n],
  ['Ei', 2n ** 60n],
];

t.test('a quantity is accepted exactly up to 2^63-1, the most Kubernetes can represent', async (t) => {
  fc.assert(
    fc.property(fc.constantFrom(...UNIT_FACTORS), fc.bigInt({ min: 0n, max: 10n ** 30n }), ([unit, factor], n) => {
      const largest = MAX_QUANTITY / factor;
      const within = n % (largest + 1n);
      return (
        quantityError(`${within}${unit}`) === undefined && quantityError(`${largest + 1n + n}${unit}`) !== undefined
      );
    }),
    { numRuns: RUNS },
  );
  // A fraction counts: 9223372036854775807.5 is above the bound, 9223372036854775807500m as well.
  fc.assert(
    fc.property(fc.stringMatching(/^[0-9]{1,3}$/), (digits) => {
      const fraction = `9223372036854775807.${digits}`;
      return (quantityError(fraction) === undefined) === /^0*$/.test(digits);
    }),
    { numRuns: RUNS },
  );
  t.equal(quantityError('9223372036854775807'), undefined);
  t.equal(quantityError('9223372036854775807000m'), undefined);
  t.equal(quantityError('7Ei'), undefined);
  t.match(quantityError('8Ei'), /may not exceed 2\^63-1/);
  t.match(quantityError('99999999999999999999999Ei'), /may not exceed 2\^63-1/);
});

t.test('a mountPath at, under or above the secrets directories is refused however it is spelled', async (t) => {
  const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
  const noise = fc.constantFrom('/', '//', '/./');
  const spell = (segments: readonly string[], seps: readonly string[]) =>
    segments.map((s, i) => `${seps[i % seps.length] ?? '/'}${s}`).join('') || '/';
  const secrets = fc.constantFrom(
    ['var', 'run', 'secrets'],
    ['run', 'secrets'],
    ['var', 'run', 'secrets', 'kubernetes.io', 'serviceaccount'],
  );
  fc.assert(
    fc.property(
      secrets,
      fc.array(segment, { maxLength: 3 }),
      fc.array(noise, { minLength: 1, maxLength: 4 }),
      fc.nat(),
      fc.boolean(),
      (dir, below, seps, cut, trailing) => {
        // The directory itself, a path under it, or one of its parents.
        const segments = cut % 2 === 0 ? [...dir, ...below] : dir.slice(0, cut % dir.length);
        return mountPathError(spell(segments, seps) + (trailing ? '/' : '')) !== undefined;
      },
    ),
    { numRuns: RUNS },
  );
  fc.assert(
    fc.property(fc.array(segment, { maxLength: 4 }), fc.constantFrom('data', 'srv', 'home', 'var'), (rest, root) => {
      const path = `/${[root, ...(root === 'var' ? ['lib', ...rest] : rest)].join('/')}`;
      return mountPathError(path) === undefined;
    }),
    { numRuns: RUNS },
  );
  t.match(mountPathError('/data/../var/run/secrets'), /must not contain "\.\." segments/);
  t.match(mountPathError('/var/run/secrets/kubernetes.io/serviceaccount'), /service-account token/);
  t.match(mountPathError('/'), /service-account token/);
  t.equal(mountPathError('/var/run/secretsx'), undefined, 'a sibling of the directory is fine');
});

t.test(
  'a profile refuses a NUL in env, a quantity too large and a mount over the token, naming each field',
  async (t) => {
    const result = validateProfile('world', {
      image: 'example/game:1.0',
      ports: [{ name: 'game', containerPort: 7777 }],
      env: { MOTD: 'a\u0000b' },
      resources: { requests: { memory: '99999999999999999999999Ei' } },
      storage: { size: '1Gi', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' },
    });
    t.ok('errors' in result);
    const pointers = 'errors' in result ? result.errors.map((e) => e.pointer).sort() : [];
    t.same(pointers, ['/env/MOTD', '/resources/requests/memory', '/storage/mountPath']);
  },
);
