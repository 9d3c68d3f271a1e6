import t, { type Test } from 'tap';
import type { KubeLite } from '@gsp/kube-lite';
import { kubectl, kubectlOk, request, startForTest } from './helper.js';

/**
 * Keyed lists (containers by name, env by name, ports by containerPort+protocol, volume mounts
 * by mountPath, volumes by name) that repeat a key. A real API server refuses such an object
 * under server-side apply (the field manager's typed conversion, a 500 with no reason), and its
 * create/update validation refuses repeated container and volume names and mount paths, while
 * repeated env names are accepted with a warning.
 */

function deployment(name: string, containers: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers, ...extra } },
    },
  };
}

function podManifest(metadata: Record<string, unknown>, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

const duplicatedEnv = deployment('web', [
  {
    name: 'app',
    image: 'registry.example/app:1',
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'MODE', value: 'prod' },
      { name: 'LOG_LEVEL', value: 'debug' },
    ],
  },
]);

/** The env values of Deployment `web`'s first container, as stored. */
function webEnvValues(t: Test, kube: KubeLite): Promise<string> {
  return kubectlOk(t, kube, [
    'get',
    'deployment',
    'web',
    '-o',
    'jsonpath={.spec.template.spec.containers[0].env[*].value}',
  ]);
}

t.test(
  'kubectl apply --server-side refuses a Deployment whose env repeats a name, as the API server does',
  async (t) => {
    const kube = await startForTest(t);
    const run = await kubectl(kube, ['apply', '--server-side', '-f', '-'], JSON.stringify(duplicatedEnv));
    t.not(run.code, 0, 'kubectl fails');
    t.equal(
      run.stderr.trim(),
      'Error from server: failed to create typed patch object (default/web; apps/v1, Kind=Deployment): ' +
        '.spec.template.spec.containers[name="app"].env: duplicate entries for key [name="LOG_LEVEL"]',
    );
    t.equal((await kubectl(kube, ['get', 'deployment', 'web'])).code, 1, 'nothing was created');

    // The same object applied once it exists (created without the duplicate) is refused as well, and left alone.
    const clean = structuredClone(duplicatedEnv) as {
      spec: { template: { spec: { containers: { env: unknown[] }[] } } };
    };
    clean.spec.template.spec.containers[0]!.env.pop();
    await kubectlOk(t, kube, ['apply', '--server-side', '-f', '-'], JSON.stringify(clean));
    const again = await kubectl(kube, ['apply', '--server-side', '-f', '-'], JSON.stringify(duplicatedEnv));
    t.not(again.code, 0);
    t.match(again.stderr, 'duplicate entries for key [name="LOG_LEVEL"]');
    t.equal(await webEnvValues(t, kube), 'info prod');
  },
);

t.test(
  "an apply patch with repeated keys gets the API server's Status: 500, no reason, every duplicate listed",
  async (t) => {
    const kube = await startForTest(t);
    const apply = (path: string, body: unknown): ReturnType<typeof request> =>
      request(kube, 'PATCH', `${path}?fieldManager=test`, body, 'application/apply-patch+yaml');

    const single = await apply('/apis/apps/v1/namespaces/default/deployments/web', duplicatedEnv);
    t.equal(single.status, 500);
    t.same(single.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): ' +
        '.spec.template.spec.containers[name="app"].env: duplicate entries for key [name="LOG_LEVEL"]',
      code: 500,
    });

    // Several problems: "errors:" and one indented line each, in document order; a third copy is a second error.
    const pod = podManifest(
      { name: 'game', namespace: 'default' },
      {
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'data', emptyDir: {} },
        ],
        containers: [
          {
            name: 'app',
            image: 'a',
            ports: [
              { containerPort: 7777 },
              { containerPort: 7777, protocol: 'UDP' },
              { containerPort: 7777, protocol: 'TCP' },
            ],
            volumeMounts: [
              { name: 'data', mountPath: '/data' },
              { name: 'data', mountPath: '/data' },
            ],
          },
          { name: 'app', image: 'b', env: [{ name: 'A' }, { name: 'A' }, { name: 'A' }] },
        ],
      },
    );
    const many = await apply('/api/v1/namespaces/default/pods/game', pod);
    t.equal(many.status, 500);
    t.equal(
      (many.body as { message: string }).message,
      [
        'failed to create typed patch object (default/game; /v1, Kind=Pod): errors:',
        '  .spec.volumes: duplicate entries for key [name="data"]',
        '  .spec.containers[name="app"].ports: duplicate entries for key [containerPort=7777,protocol="TCP"]',
        '  .spec.containers[name="app"].volumeMounts: duplicate entries for key [mountPath="/data"]',
        '  .spec.containers: duplicate entries for key [name="app"]',
        '  .spec.containers[name="app"].env: duplicate entries for key [name="A"]',
        '  .spec.containers[name="app"].env: duplicate entries for key [name="A"]',
      ].join('\n'),
    );
    t.equal((await request(kube, 'GET', '/api/v1/namespaces/default/pods/game')).status, 404, 'nothing was created');

    // An element without its key field is refused too; the rest of that list is not looked at.
    const keyless = await apply(
      '/apis/apps/v1/namespaces/default/deployments/web',
      deployment('web', [{ name: 'app', image: 'a', env: [{ value: 'x' }, { name: 'B' }, { name: 'B' }] }]),
    );
    t.equal(keyless.status, 500);
    t.equal(
      (keyless.body as { message: string }).message,
      'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): ' +
        '.spec.template.spec.containers[name="app"].env: element 0: ' +
        'associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );

    // A Service's ports are keyed by port and protocol, which defaults to TCP.
    const service = await apply('/api/v1/namespaces/default/services/web', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        ports: [
          { name: 'http', port: 80 },
          { name: 'alt', port: 80, protocol: 'TCP' },
        ],
      },
    });
    t.equal(service.status, 500);
    t.equal(
      (service.body as { message: string }).message,
      'failed to create typed patch object (default/web; /v1, Kind=Service): ' +
        '.spec.ports: duplicate entries for key [port=80,protocol="TCP"]',
    );

    // Same container port under two protocols is two entries; the same list without repeats applies.
    const fine = await apply(
      '/apis/apps/v1/namespaces/default/deployments/web',
      deployment('web', [
        { name: 'app', image: 'a', ports: [{ containerPort: 7777 }, { containerPort: 7777, protocol: 'UDP' }] },
      ]),
    );
    t.equal(fine.status, 201, JSON.stringify(fine.body));
  },
);

t.test(
  'kubectl create refuses containers that share a name, volumes that share a name and mounts that share a path',
  async (t) => {
    const kube = await startForTest(t);
    const twoApps = deployment('web', [
      { name: 'app', image: 'registry.example/app:1' },
      { name: 'app', image: 'registry.example/sidecar:1' },
    ]);
    const run = await kubectl(kube, ['create', '-f', '-'], JSON.stringify(twoApps));
    t.not(run.code, 0);
    t.equal(
      run.stderr.trim(),
      'The Deployment "web" is invalid: spec.template.spec.containers[1].name: Duplicate value: "app"',
    );
    t.equal((await kubectl(kube, ['get', 'deployment', 'web'])).code, 1, 'nothing was created');

    const res = await request(kube, 'POST', '/apis/apps/v1/namespaces/default/deployments', twoApps);
    t.equal(res.status, 422);
    t.match(res.body, {
      reason: 'Invalid',
      details: {
        name: 'web',
        group: 'apps',
        kind: 'Deployment',
        causes: [
          {
            reason: 'FieldValueDuplicate',
            message: 'Duplicate value: "app"',
            field: 'spec.template.spec.containers[1].name',
          },
        ],
      },
    });

    // An init container may not take a regular container's name either; volumes and mount paths are unique too.
    const volumeMounts = [
      { name: 'data', mountPath: '/data' },
      { name: 'cache', mountPath: '/data' },
    ];
    const pod = podManifest(
      { name: 'game' },
      {
        initContainers: [{ name: 'app', image: 'init' }],
        containers: [{ name: 'app', image: 'a', volumeMounts }],
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'cache', emptyDir: {} },
          { name: 'data', emptyDir: {} },
        ],
      },
    );
    const refused = await kubectl(kube, ['create', '-f', '-'], JSON.stringify(pod));
    t.not(refused.code, 0);
    t.equal(
      refused.stderr.trim(),
      [
        'The Pod "game" is invalid: ',
        '* spec.volumes[2].name: Duplicate value: "data"',
        '* spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique',
        '* spec.initContainers[0].name: Duplicate value: "app"',
      ].join('\n'),
    );
    const status = await request(kube, 'POST', '/api/v1/namespaces/default/pods', pod);
    t.equal(status.status, 422);
    t.equal(
      (status.body as { message: string }).message,
      'Pod "game" is invalid: [spec.volumes[2].name: Duplicate value: "data", ' +
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique, ' +
        'spec.initContainers[0].name: Duplicate value: "app"]',
    );

    // A strategic merge patch that adds a second container of the same name to a valid object is refused the same way.
    await kubectlOk(t, kube, ['create', '-f', '-'], JSON.stringify(deployment('api', [{ name: 'app', image: 'a' }])));
    const patched = await kubectl(kube, [
      'patch',
      'deployment',
      'api',
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'app', image: 'b' } }]),
    ]);
    t.not(patched.code, 0);
    t.match(patched.stderr, 'spec.template.spec.containers[1].name: Duplicate value: "app"');
  },
);

/** A pod whose env defines P three times, each later definition building on the one before. */
function podWithPathBuiltUp(name: string): Record<string, unknown> {
  const env = [
    { name: 'P', value: '/a' },
    { name: 'P', value: '$(P):/b' },
    { name: 'P', value: '$(P)' },
  ];
  return podManifest({ name }, { containers: [{ name: 'app', image: 'a', env }] });
}

t.test("a repeated env name is accepted on create, with the API server's warning, and refused by apply", async (t) => {
  const kube = await startForTest(t);
  const created = await kubectl(kube, ['create', '-f', '-'], JSON.stringify(duplicatedEnv));
  t.equal(created.code, 0, created.stderr);
  t.equal(
    created.stderr.trim(),
    'Warning: spec.template.spec.containers[0].env[2]: hides previous definition of "LOG_LEVEL", ' +
      'which may be dropped when using apply',
  );
  t.equal(await webEnvValues(t, kube), 'info prod debug', 'stored as sent');

  // A later definition that builds on the earlier one ("$(X) more") is not warned about, as on a real server.
  const res = await request(kube, 'POST', '/api/v1/namespaces/default/pods', podWithPathBuiltUp('game'));
  t.equal(res.status, 201);
  const warned = await fetch(`${kube.url}/api/v1/namespaces/default/pods/game`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({ metadata: { labels: { a: 'b' } } }),
  });
  t.equal(warned.headers.get('warning'), null, 'pods are not warned about on update');
  const dryRun = await fetch(`${kube.url}/api/v1/namespaces/default/pods?dryRun=All`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(podWithPathBuiltUp('other')),
  });
  t.equal(dryRun.status, 201);
  t.equal(
    dryRun.headers.get('warning'),
    '299 - "spec.containers[0].env[2]: hides previous definition of \\"P\\", which may be dropped when using apply"',
  );

  // Server-side apply of the stored object (which has the duplicate) is refused.
  const applied = await kubectl(kube, ['apply', '--server-side', '-f', '-'], JSON.stringify(duplicatedEnv));
  t.not(applied.code, 0);
  t.match(applied.stderr, 'duplicate entries for key [name="LOG_LEVEL"]');
});
