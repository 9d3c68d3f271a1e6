/**
 * deploy/README.md's "Backup and restore" run as an operator would paste it: its two `sh` blocks through
 * bash, with `pg_dump`, `pg_restore` and `jq` from the machine, kubectl pointed at kube-lite, and
 * `DATABASE_URL` a database of its own on the machine's PostgreSQL. What the platform holds before
 * the backup must be there again after a disaster and the restore.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import pg from 'pg';
import { buildApp, loadConfig } from '@gsp/api-server';
import { JWT_SECRET, PLATFORM_ADMIN, bearer } from '@gsp/api-server/testing';
import { findKubectl, startKubeLite } from '@gsp/kube-lite';
import { bash, run, sectionShBlocks } from './readme.js';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A database of its own (a dump covers a whole database), dropped at the end. */
async function freshDatabase(t: { teardown(fn: () => unknown): void }): Promise<string> {
  const name = `gsp_ops_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: SERVER });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  });
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return url.href;
}

t.test('the README backup and restore bring back flags, API keys and profiles', async (t) => {
  const databaseUrl = await freshDatabase(t);
  const headers = await bearer(PLATFORM_ADMIN);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    AUTH_JWT_SECRET: JWT_SECRET,
    PLATFORM_ADMINS: PLATFORM_ADMIN,
  });
  const flagRecord = async (): Promise<unknown> => {
    const app = await buildApp(config, false);
    try {
      return (await app.inject({ url: '/api/v1/platform/feature-flags', headers })).json().flags[0];
    } finally {
      await app.close();
    }
  };
  const app = await buildApp(config, false);
  const put = await app.inject({
    method: 'PUT',
    url: '/api/v1/platform/feature-flags/cli_access.enabled',
    headers,
    payload: { value: false, reason: 'incident 42' },
  });
  await app.close();
  t.equal(put.statusCode, 200, 'the kill switch is off, with a reason');

  const kube = await startKubeLite({ port: 0 });
  t.teardown(() => kube.close());
  const work = mkdtempSync(join(tmpdir(), 'gsp-ops-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  // kubectl as the operator has it: on PATH, pointed at the cluster.
  const bin = join(work, 'bin');
  mkdirSync(bin);
  symlinkSync(findKubectl({ searchPath: false }), join(bin, 'kubectl'));
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: work,
    KUBECONFIG: kube.kubeconfigPath,
    DATABASE_URL: databaseUrl,
  };
  const kubectl = async (...args: string[]): Promise<string> => {
    const result = await run('kubectl', args, { env });
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  await kubectl('create', 'namespace', 'gsp');
  for (const name of ['gsp-platform-api-server', 'gsp-platform-cluster-proxy'])
    await kubectl('-n', 'gsp', 'create', 'deployment', name, '--image=gsp/x', '--replicas=2');
  // What the control plane stores: a key's Secret (its hash) and a profile's ConfigMap.
  await kubectl('-n', 'gsp', 'create', 'secret', 'generic', 'gsp-apikey-ci', '--from-literal=hash=$2b$10$abc');
  await kubectl('-n', 'gsp', 'label', 'secret', 'gsp-apikey-ci', 'gsp.dev/apikey=ci');
  await kubectl('-n', 'gsp', 'create', 'configmap', 'gsp-profile-arena', '--from-literal=profile={"image":"a"}');
  await kubectl('-n', 'gsp', 'label', 'configmap', 'gsp-profile-arena', 'gsp.dev/profile=arena');
  const before = await flagRecord();

  const [backup, restore, ...rest] = sectionShBlocks('Backup and restore');
  t.equal(rest.length, 0, 'two blocks: back up, restore');
  const backedUp = await bash(backup!, { cwd: work, env });
  t.equal(backedUp.code, 0, `the backup block runs: ${backedUp.stderr}`);

  // The disaster: the database's tables, the key and the profile are gone.
  const pool = new pg.Pool({ connectionString: databaseUrl });
  await pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  await pool.end();
  await kubectl('-n', 'gsp', 'delete', 'secret', 'gsp-apikey-ci');
  await kubectl('-n', 'gsp', 'delete', 'configmap', 'gsp-profile-arena');

  const restored = await bash(restore!, { cwd: work, env });
  t.equal(restored.code, 0, `the restore block runs: ${restored.stderr}`);
  t.same(await flagRecord(), before, 'the flag, its reason and its actor are back');
  t.match(before, { value: false, platformRecord: { reason: 'incident 42', actor: PLATFORM_ADMIN } }, 'as set');
  const key = JSON.parse(await kubectl('-n', 'gsp', 'get', 'secret', 'gsp-apikey-ci', '-o', 'json')) as {
    metadata: { labels: Record<string, string> };
    data: Record<string, string>;
  };
  t.same(key.metadata.labels, { 'gsp.dev/apikey': 'ci' }, 'the API key is back with its label');
  t.equal(Buffer.from(key.data.hash!, 'base64').toString(), '$2b$10$abc', 'and its hash');
  t.match(
    await kubectl('-n', 'gsp', 'get', 'configmap', '-l', 'gsp.dev/profile', '-o', 'name'),
    'configmap/gsp-profile-arena',
    'the profile is back',
  );
  const replicas = await kubectl('-n', 'gsp', 'get', 'deployments', '-o', 'jsonpath={.items[*].spec.replicas}');
  t.equal(replicas, '2 2', 'the API server and the proxy are scaled back');
});
