import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { findHelm, type KubeLite } from '@gsp/kube-lite';
import { kubectlOk, startForTest } from './helper.js';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

const fixtures = join(workspaceDir(import.meta.url), 'test', 'fixtures');
const chart = join(fixtures, 'chart');
/** A Deployment, its ServiceAccount, and a Role bound to it, as our charts make them. */
const workloadChart = join(fixtures, 'workload-chart');

function helm(kube: KubeLite, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      findHelm({ searchPath: false }),
      ['--kubeconfig', kube.kubeconfigPath, ...args],
      {
        env: {
          ...process.env,
          HELM_CACHE_HOME: join(dirname(kube.kubeconfigPath), 'helm-cache'),
          HELM_CONFIG_HOME: join(dirname(kube.kubeconfigPath), 'helm-config'),
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** What `kubectl get <kind> <name> -o jsonpath=<path>` prints. */
function jsonpath(t: Test, kube: KubeLite, kind: string, name: string, path: string): Promise<string> {
  return kubectlOk(t, kube, ['get', kind, name, '-o', `jsonpath=${path}`]);
}

t.test('helm installs, upgrades and uninstalls a release, keeping it in a Secret', async (t) => {
  const kube = await startForTest(t);
  const install = await helm(kube, ['install', 'demo', chart]);
  t.equal(install.code, 0, install.stderr);
  t.match(install.stdout, 'STATUS: deployed');
  t.equal(await jsonpath(t, kube, 'configmap', 'demo-settings', '{.data.greeting}'), 'hello');
  t.match(
    await kubectlOk(t, kube, ['get', 'secrets', '-l', 'owner=helm', '-o', 'name']),
    'secret/sh.helm.release.v1.demo.v1',
  );

  const upgrade = await helm(kube, ['upgrade', 'demo', chart, '--set', 'greeting=bonjour']);
  t.equal(upgrade.code, 0, upgrade.stderr);
  t.equal(await jsonpath(t, kube, 'configmap', 'demo-settings', '{.data.greeting}'), 'bonjour');
  t.match((await helm(kube, ['list'])).stdout, /demo\s+default\s+2\s+/);

  const uninstall = await helm(kube, ['uninstall', 'demo']);
  t.equal(uninstall.code, 0, uninstall.stderr);
  t.equal(await kubectlOk(t, kube, ['get', 'configmaps', '-o', 'name']), '');
});

t.test(
  'helm installs, upgrades and uninstalls a Deployment with its ServiceAccount, Role and RoleBinding',
  async (t) => {
    const kube = await startForTest(t);
    const objects = ['deployment/web-api', 'serviceaccount/web-api', 'role/web-api', 'rolebinding/web-api'];
    // helm 4 applies server-side by default.
    const install = await helm(kube, ['install', 'web', workloadChart]);
    t.equal(install.code, 0, install.stderr);
    t.match(install.stdout, 'STATUS: deployed');
    t.same((await kubectlOk(t, kube, ['get', ...objects, '-o', 'name'])).trim().split('\n'), [
      'deployment.apps/web-api',
      'serviceaccount/web-api',
      'role.rbac.authorization.k8s.io/web-api',
      'rolebinding.rbac.authorization.k8s.io/web-api',
    ]);
    t.match(
      await kubectlOk(t, kube, ['get', 'deployment', 'web-api']),
      /\nweb-api\s+0\/2\s+0\s+0\s+\d+s\n/,
      'stored, not reconciled: no replica is ever ready',
    );
    t.equal(
      await jsonpath(
        t,
        kube,
        'rolebinding',
        'web-api',
        '{.roleRef.kind}/{.roleRef.name} {.subjects[0].kind}/{.subjects[0].name}',
      ),
      'Role/web-api ServiceAccount/web-api',
    );
    t.equal(
      await jsonpath(t, kube, 'deployment', 'web-api', '{.metadata.annotations.meta\\.helm\\.sh/release-name}'),
      'web',
    );

    const upgrade = await helm(kube, [
      'upgrade',
      'web',
      workloadChart,
      '--set',
      'image=registry.example/game-api:1.1.0',
    ]);
    t.equal(upgrade.code, 0, upgrade.stderr);
    t.equal(
      await jsonpath(
        t,
        kube,
        'deployment',
        'web-api',
        '{.spec.template.spec.containers[0].image} {.metadata.generation}',
      ),
      'registry.example/game-api:1.1.0 2',
    );

    const uninstall = await helm(kube, ['uninstall', 'web']);
    t.equal(uninstall.code, 0, uninstall.stderr);
    t.equal(await kubectlOk(t, kube, ['get', ...objects, '-o', 'name', '--ignore-not-found']), '');
  },
);

t.test('helm install fails, as on a real cluster, when the values repeat a container variable', async (t) => {
  const kube = await startForTest(t);
  const duplicate = ['--set', 'extraEnv[0].name=LOG_LEVEL', '--set', 'extraEnv[0].value=debug'];
  // helm 4 applies server-side, and server-side apply refuses a list that repeats a key.
  const install = await helm(kube, ['install', 'dup', workloadChart, ...duplicate]);
  t.not(install.code, 0, 'helm install fails');
  t.match(
    install.stderr,
    'Error: INSTALLATION FAILED: failed to create typed patch object (default/dup-api; apps/v1, Kind=Deployment): ' +
      '.spec.template.spec.containers[name="api"].env: duplicate entries for key [name="LOG_LEVEL"]',
  );
  t.equal(
    await kubectlOk(t, kube, ['get', 'deployment', 'dup-api', '-o', 'name', '--ignore-not-found']),
    '',
    'no Deployment was made',
  );
  t.match((await helm(kube, ['list', '--failed'])).stdout, /dup\s+default\s+1\s+.*failed/);

  // Client-side apply (a plain create) lets the duplicate through, with the API server's warning.
  const clientSide = await helm(kube, ['install', 'dup2', workloadChart, ...duplicate, '--server-side=false']);
  t.equal(clientSide.code, 0, clientSide.stderr);
  // helm logs it through klog, which quotes the text again.
  t.match(
    clientSide.stderr,
    new RegExp(
      'Warning: spec\\.template\\.spec\\.containers\\[0\\]\\.env\\[1\\]: ' +
        'hides previous definition of \\\\"LOG_LEVEL\\\\", which may be dropped when using apply',
    ),
  );
  t.equal(
    await jsonpath(t, kube, 'deployment', 'dup2-api', '{.spec.template.spec.containers[0].env[*].value}'),
    'info debug',
  );
});
