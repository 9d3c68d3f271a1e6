import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import t from 'tap';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

/**
 * `npm ci` warns EBADENGINE for every locked package whose `engines.node` excludes the Node the README promises
 * (20.19 or newer). The lockfile records each package's engines, so the warning can be predicted without
 * installing: every locked package must accept the oldest Node we support and the one running the tests.
 */
const root = workspaceDir(import.meta.url);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
};

t.test('every locked package accepts the Node versions the README promises', async (t) => {
  const oldest = semver.minVersion(manifest.engines.node)?.version;
  t.equal(oldest, '20.19.0', 'the root package promises Node 20.19 or newer');
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const engines = entry.engines;
    const node = engines && !Array.isArray(engines) ? engines.node : undefined;
    if (!node || path === '') continue;
    for (const version of [oldest ?? '20.19.0', process.versions.node]) {
      if (!semver.satisfies(version, node))
        refused.push(`${path}@${entry.version ?? '?'} wants node ${node}, not ${version}`);
    }
  }
  t.same(refused, [], 'no locked package would make npm ci print EBADENGINE');
});
