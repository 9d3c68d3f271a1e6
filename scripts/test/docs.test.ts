import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

/** What the READMEs say about the repository, checked against the repository itself. */
const root = workspaceDir(import.meta.url);
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const manifest = JSON.parse(read('package.json')) as { workspaces: string[] };

/** Every workspace folder: `packages/*` and `services/*` holding a package.json. */
function workspaces(): string[] {
  return manifest.workspaces.flatMap((pattern) => {
    const parent = pattern.replace(/\/\*$/, '');
    return readdirSync(join(root, parent))
      .map((name) => `${parent}/${name}`)
      .filter((dir) => existsSync(join(root, dir, 'package.json')));
  });
}

/** The test files under `dir`, at any depth, as the suite's `<dir>/test/**` globs find them. */
function countTestFiles(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.test.ts')) count++;
  }
  return count;
}

t.test(
  "the root README's workspace table lists every workspace, the panel and the design system among them",
  async (t) => {
    const readme = read('README.md');
    const table = readme.slice(readme.indexOf('## Workspaces'));
    const all = workspaces();
    t.ok(all.includes('packages/gameserver-panel') && all.includes('packages/ui'), 'both are workspaces');
    t.same(
      all.filter((dir) => !table.includes(`| [\`${dir}\`](${dir}/README.md) |`)),
      [],
      'each has its row, linking its README',
    );
  },
);

t.test('the root README tells a newcomer about the game-server panel and where it is', async (t) => {
  const readme = read('README.md');
  t.match(readme, /\*\*game-server panel\*\*/, 'in what the platform is');
  t.match(readme, 'http://127.0.0.1:8080/panel/', 'and in what npm start prints');
});

t.test("the CI script's comment names no count of test files that is not the suite's", async (t) => {
  const suite = ['packages', 'services']
    .flatMap((parent) => readdirSync(join(root, parent)).map((name) => `${parent}/${name}/test`))
    .concat(['deploy/test', 'scripts/test'])
    .filter((dir) => existsSync(join(root, dir)))
    .reduce((sum, dir) => sum + countTestFiles(dir), 0);
  t.ok(suite > 200, `${suite} test files`);
  const counts = [...read('.ci/run').matchAll(/\b(\d+) (?:test )?files\b/g)].map((m) => Number(m[1]));
  t.same(
    counts.filter((n) => n !== suite),
    [],
    'no stale count',
  );
});

t.test("each service's README says how to run its own tests, and that command runs exactly them", async (t) => {
  for (const dir of workspaces().filter((d) => d.startsWith('services/'))) {
    const readme = read(`${dir}/README.md`);
    t.match(readme, `npm test -w ${dir}\n`, `${dir}: its README says npm test -w ${dir}`);
    const pkg = JSON.parse(read(`${dir}/package.json`)) as { scripts?: Record<string, string> };
    // npm runs a workspace's script in its folder; tap reads the root's configuration (tsx, timeouts).
    t.equal(
      pkg.scripts?.test,
      `cd ../.. && tap '${dir}/test/**/*.test.ts'`,
      `${dir}: its test script runs tap on its tests`,
    );
    t.ok(countTestFiles(`${dir}/test`) > 0, `${dir}: which exist`);
  }
});
