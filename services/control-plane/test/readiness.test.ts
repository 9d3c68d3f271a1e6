import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startKubeLite } from '@gsp/kube-lite';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { AuditCapture, baseEnv } from './helper.js';

t.test(
  'probes of a replica that cannot load from its cluster get 503 and log one warning, without a stack',
  async (t) => {
    // The cluster refuses this replica's token, so nothing is ever loaded (as with an unreachable one).
    const kube = await startKubeLite({ port: 0, token: 'the-right-token' });
    t.teardown(() => kube.close());
    const dir = mkdtempSync(join(tmpdir(), 'cp-readiness-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, readFileSync(kube.kubeconfigPath, 'utf8').replace('the-right-token', 'a-revoked-token'));
    const log = new AuditCapture();
    const config = loadConfig(
      { ...baseEnv(kube), KUBECONFIG: kubeconfig },
      { serviceAccountNamespaceFile: '/nonexistent' },
    );
    const app = await buildApp(config, { logger: { level: 'info', stream: log }, auditStream: new AuditCapture() });
    t.teardown(() => app.close());
    await app.ready();

    for (let i = 0; i < 20; i++) {
      const res = await app.inject({ url: '/readyz' });
      t.equal(res.statusCode, 503);
      t.ok(res.headers['retry-after'], 'says when to ask again');
      t.match(res.json(), { status: 503, detail: 'the API key index has not been loaded from Kubernetes yet' });
    }
    const about = log.lines().filter((l) => JSON.stringify(l).includes('has not been loaded from Kubernetes yet'));
    t.same(
      about.map((l) => [l.level, l.msg, l.reason]),
      [[40, 'not ready', 'the API key index has not been loaded from Kubernetes yet']],
      'one warning for twenty probes',
    );
    t.notMatch(log.text.join(''), /"stack":"[^"]/, 'no stack trace');
  },
);
