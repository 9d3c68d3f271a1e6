import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { kubectl, startKube } from './helper.js';
import { checkUserLabels, gameServerManifest, generateName } from '../src/profiles/manifest.js';
import type { Profile } from '../src/profiles/types.js';

const PROFILE: Profile = {
  name: 'minecraft',
  image: 'itzg/minecraft-server:2024.6',
  ports: [
    { name: 'game', containerPort: 25565, protocol: 'TCP' },
    { name: 'query', containerPort: 25565, protocol: 'UDP' },
  ],
  env: { EULA: 'TRUE', MEMORY: '1G' },
  resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } },
  health: { initialDelaySeconds: 30, periodSeconds: 10, failureThreshold: 5 },
  storage: { size: '5Gi', storageClassName: 'fast.ssd', mountPath: '/data' },
  players: { initialCapacity: 20 },
  actions: {},
};

t.test(
  'a game server of a profile is an Agones GameServer with its ports, health, players, image and resources',
  async (t) => {
    const { gameServer } = gameServerManifest(PROFILE, { namespace: 'games', name: 'minecraft-x1y2z' });
    t.same(gameServer, {
      apiVersion: 'agones.dev/v1',
      kind: 'GameServer',
      metadata: {
        name: 'minecraft-x1y2z',
        namespace: 'games',
        labels: { 'gsp.dev/profile': 'minecraft', 'app.kubernetes.io/managed-by': 'gsp-control-plane' },
      },
      spec: {
        container: 'gameserver',
        ports: [
          { name: 'game', portPolicy: 'Dynamic', containerPort: 25565, protocol: 'TCP' },
          { name: 'query', portPolicy: 'Dynamic', containerPort: 25565, protocol: 'UDP' },
        ],
        health: { initialDelaySeconds: 30, periodSeconds: 10, failureThreshold: 5 },
        players: { initialCapacity: 20 },
        template: {
          spec: {
            containers: [
              {
                name: 'gameserver',
                image: 'itzg/minecraft-server:2024.6',
                env: [
                  { name: 'EULA', value: 'TRUE' },
                  { name: 'MEMORY', value: '1G' },
                ],
                resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } },
                volumeMounts: [{ name: 'data', mountPath: '/data' }],
              },
            ],
            volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'minecraft-x1y2z-data' } }],
          },
        },
      },
    });
  },
);

t.test("the environment of a request is added to the profile's, and wins over it", async (t) => {
  const { gameServer } = gameServerManifest(PROFILE, {
    namespace: 'games',
    name: 'mc',
    env: { MEMORY: '4G', MOTD: 'hello' },
  });
  t.same(gameServer.spec.template.spec.containers[0]?.env, [
    { name: 'EULA', value: 'TRUE' },
    { name: 'MEMORY', value: '4G' },
    { name: 'MOTD', value: 'hello' },
  ]);
});

t.test('the labels of a request are kept, but never replace the profile and managed-by labels', async (t) => {
  const labels = { team: 'blue', 'gsp.dev/profile': 'other', 'app.kubernetes.io/managed-by': 'me' };
  const { gameServer, claim } = gameServerManifest(PROFILE, { namespace: 'games', name: 'mc', labels });
  const expected = {
    team: 'blue',
    'gsp.dev/profile': 'minecraft',
    'app.kubernetes.io/managed-by': 'gsp-control-plane',
  };
  t.same(gameServer.metadata.labels, expected);
  t.same(claim?.('uid-1').metadata?.labels, expected, 'on the claim too');
});

t.test('storage is a ReadWriteOnce claim owned by the game server, so it goes when the server goes', async (t) => {
  const { claim } = gameServerManifest(PROFILE, { namespace: 'games', name: 'mc' });
  t.same(claim?.('3f6c1c9e-uid'), {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'mc-data',
      namespace: 'games',
      labels: { 'gsp.dev/profile': 'minecraft', 'app.kubernetes.io/managed-by': 'gsp-control-plane' },
      ownerReferences: [
        {
          apiVersion: 'agones.dev/v1',
          kind: 'GameServer',
          name: 'mc',
          uid: '3f6c1c9e-uid',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } }, storageClassName: 'fast.ssd' },
  });
  const { storage: _storage, ...withoutClass } = PROFILE;
  const defaultClass = gameServerManifest(
    { ...withoutClass, storage: { size: '1Gi', mountPath: '/srv' } },
    { namespace: 'games', name: 'mc' },
  );
  t.notOk('storageClassName' in (defaultClass.claim?.('u').spec ?? {}), 'no class: the cluster default');
});

t.test('a profile without storage, health, players or resources makes a plain game server and no claim', async (t) => {
  const bare: Profile = {
    name: 'bare',
    image: 'nginx',
    ports: [{ name: 'http', containerPort: 80, protocol: 'UDP' }],
    env: {},
    actions: {},
  };
  const { gameServer, claim } = gameServerManifest(bare, { namespace: 'default', name: 'bare-1' });
  t.equal(claim, undefined);
  t.same(Object.keys(gameServer.spec).sort(), ['container', 'ports', 'template']);
  t.same(gameServer.spec.template.spec, { containers: [{ name: 'gameserver', image: 'nginx', env: [] }] });
});

t.test('a generated name is the profile name and 5 random characters, at most 63 in all', async (t) => {
  t.match(generateName('minecraft'), /^minecraft-[a-z0-9]{5}$/);
  fc.assert(
    fc.property(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/), (profile) => {
      const name = generateName(profile);
      if (name.length > 63 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name))
        throw new Error(`${name} is not a valid game server name`);
      if (!name.startsWith(profile.slice(0, 57))) throw new Error(`${name} does not start with the profile's name`);
    }),
  );
  const names = new Set(Array.from({ length: 200 }, () => generateName('p')));
  t.ok(names.size > 190, `${names.size} different names out of 200`);
});

t.test("user labels may not use the platform's prefixes or the managed-by label", async (t) => {
  t.same(checkUserLabels({ team: 'blue', 'example.com/tier': 'gold', 'app.kubernetes.io/name': 'mc', empty: '' }), []);
  t.same(
    checkUserLabels({
      'gsp.dev/profile': 'x',
      'team.gsp.dev/owner': 'y',
      'agones.dev/gameserverset': 'z',
      'app.kubernetes.io/managed-by': 'me',
    }),
    [
      {
        pointer: '/labels/gsp.dev~1profile',
        message: 'label "gsp.dev/profile" is reserved: labels with the prefix gsp.dev/ are set by the platform',
      },
      {
        pointer: '/labels/team.gsp.dev~1owner',
        message: 'label "team.gsp.dev/owner" is reserved: labels with the prefix team.gsp.dev/ are set by the platform',
      },
      {
        pointer: '/labels/agones.dev~1gameserverset',
        message:
          'label "agones.dev/gameserverset" is reserved: labels with the prefix agones.dev/ are set by the platform',
      },
      {
        pointer: '/labels/app.kubernetes.io~1managed-by',
        message: 'label "app.kubernetes.io/managed-by" is reserved: the control plane sets it to gsp-control-plane',
      },
    ],
  );
});

t.test('user labels must be valid Kubernetes label keys and values', async (t) => {
  const errors = checkUserLabels({
    '-bad': 'x',
    'Example.com/x': 'y',
    ['a'.repeat(64)]: 'z',
    ok: 'white space',
    fine: 'v'.repeat(64),
    'a/b/c': 'x',
  });
  t.same(
    errors.map((e) => e.pointer),
    [
      '/labels/-bad',
      '/labels/Example.com~1x',
      `/labels/${'a'.repeat(64)}`,
      '/labels/ok',
      '/labels/fine',
      '/labels/a~1b~1c',
    ],
  );
  t.match(errors[0], { message: /^label "-bad" must be a Kubernetes label key/ });
  t.match(errors[1], { message: /must have a DNS-1123 subdomain as its prefix/ });
  t.match(errors[3], { message: /^the value of label "ok" must be a Kubernetes label value/ });
  t.same(checkUserLabels({ x: 'y' }, '/spec/labels'), []);
  t.match(checkUserLabels({ 'gsp.dev/a': 'b' }, '/metadata/labels'), [{ pointer: '/metadata/labels/gsp.dev~1a' }]);
  t.match(checkUserLabels(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`l${i}`, 'v']))), [
    { pointer: '/labels', message: 'at most 64 labels may be given' },
  ]);
});

t.test('Kubernetes accepts the GameServer and, with the uid it was given, its claim', async (t) => {
  const kube = await startKube(t);
  const dir = mkdtempSync(join(tmpdir(), 'cp-manifest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const create = async (name: string, object: unknown): Promise<{ metadata: { uid: string } }> => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(object));
    const run = await kubectl(kube, ['create', '-f', file, '-o', 'json']);
    if (run.code !== 0) throw new Error(`kubectl create ${name}: ${run.stderr}`);
    return JSON.parse(run.stdout) as { metadata: { uid: string } };
  };
  const { gameServer, claim } = gameServerManifest(PROFILE, {
    namespace: 'default',
    name: generateName(PROFILE.name),
    labels: { team: 'blue' },
  });
  const created = await create('gameserver', gameServer);
  if (!claim) return t.fail('a profile with storage has a claim');
  await create('claim', claim(created.metadata.uid));
  const run = await kubectl(kube, [
    'get',
    'pvc',
    '-n',
    'default',
    '-l',
    'gsp.dev/profile=minecraft,team=blue',
    '-o',
    'jsonpath={.items[*].metadata.ownerReferences[0].uid}',
  ]);
  t.equal(run.stdout, created.metadata.uid, 'the claim names its game server as owner');
});
