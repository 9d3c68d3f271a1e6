import t from 'tap';
import type { Test } from 'tap';
import { runScript, throwawayTree } from './run-script.js';

const cycles = (root: string) => runScript('cycles', root);

/** A repository of one workspace, `packages/a`, with these sources under `src/`. */
function fixture(t: Test, sources: Record<string, string>): string {
  const files: Record<string, string> = {
    'packages/a/tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
      include: ['src'],
    }),
  };
  for (const [name, text] of Object.entries(sources)) files[`packages/a/src/${name}`] = text;
  return throwawayTree(t, files);
}

t.test('a circle made only of `import type` is found, and the check fails', async (t) => {
  const root = fixture(t, {
    'agent.ts': "import type { Events } from './front.js';\nexport const agent = (events: Events) => events;\n",
    'front.ts': "import type { agent } from './agent.js';\nexport interface Events { of: typeof agent }\n",
  });
  const { code, stdout } = await cycles(root);
  t.equal(code, 1);
  t.match(stdout, /packages\/a\/src\/agent\.ts\n\s+-> packages\/a\/src\/front\.ts\n\s+-> packages\/a\/src\/agent\.ts/);
  t.match(stdout, /1 import circle/);
});

t.test('imports that flow one way pass', async (t) => {
  const root = fixture(t, {
    'events.ts': 'export interface Events { n: number }\n',
    'agent.ts': "import type { Events } from './events.js';\nexport const agent = (events: Events) => events;\n",
    'front.ts': "import type { Events } from './events.js';\nexport type Front = Events;\n",
  });
  const { code, stdout } = await cycles(root);
  t.equal(code, 0);
  t.match(stdout, /3 files read in 1 workspaces: 0 import circle/);
});

t.test('a circle between folders is found though no file imports itself round, `import type` too', async (t) => {
  const root = fixture(t, {
    'agent/run.ts': "import { front } from '../front/serve.js';\nexport const run = () => front;\n",
    'front/serve.ts': 'export const front = 1;\n',
    'front/types.ts': "import type { Job } from '../agent/job.js';\nexport type Front = Job;\n",
    'agent/job.ts': 'export interface Job { n: number }\n',
  });
  const { code, stdout } = await cycles(root);
  t.equal(code, 1, stdout);
  t.match(stdout, /folder import circle of 2 folder\(s\) \(in packages\/a\/src/);
  t.match(stdout, /^ {2}agent -> front -> agent$/m);
  t.match(stdout, /agent -> front: packages\/a\/src\/agent\/run\.ts imports packages\/a\/src\/front\/serve\.ts/);
  t.match(stdout, /front -> agent: packages\/a\/src\/front\/types\.ts imports packages\/a\/src\/agent\/job\.ts/);
  t.match(stdout, /0 import circle\(s\), 1 folder circle\(s\)/);
});

/** A repository of one service, `services/s`, with these sources under `src/`. */
function service(t: Test, sources: Record<string, string>): string {
  const files: Record<string, string> = {
    'services/s/tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
      include: ['src'],
    }),
  };
  for (const [name, text] of Object.entries(sources)) files[`services/s/src/${name}`] = text;
  return throwawayTree(t, files);
}

/** A service wired as the control plane is: app.ts registers plugins and routes, which use shared files in src/. */
const wired = {
  'errors.ts': 'export class NotFound extends Error {}\n',
  'app.ts':
    "import { redis } from './plugins/redis.js';\nimport { routes } from './routes.js';\n" +
    'export const app = [redis, routes];\n',
  'routes.ts': "import { locks } from './locks/locks.js';\nexport const routes = [locks];\n",
  'plugins/redis.ts': "import { NotFound } from '../errors.js';\nexport const redis = NotFound;\n",
};

t.test("a service's wiring may import its folders, and src/'s shared files are no circle with it", async (t) => {
  const root = service(t, {
    ...wired,
    'locks/locks.ts': "import { NotFound } from '../errors.js';\nexport const locks = NotFound;\n",
  });
  const { code, stdout } = await cycles(root);
  t.equal(code, 0, stdout);
  t.match(stdout, /0 import circle\(s\), 0 folder circle\(s\), 0 import\(s\) into wiring/);
});

t.test('a feature folder importing plugins/ or the top-level wiring is reported, a type too', async (t) => {
  const root = service(t, {
    ...wired,
    'locks/locks.ts':
      "import type { redis } from '../plugins/redis.js';\nexport const locks = (r: typeof redis) => r;\n",
    'locks/order.ts': "import type { app } from '../app.js';\nexport type Order = typeof app;\n",
  });
  const { code, stdout } = await cycles(root);
  t.equal(code, 1, stdout);
  t.match(
    stdout,
    /import into a service's wiring: services\/s\/src\/locks\/locks\.ts imports services\/s\/src\/plugins\/redis\.ts/,
  );
  t.match(
    stdout,
    /import into a service's wiring: services\/s\/src\/locks\/order\.ts imports services\/s\/src\/app\.ts/,
  );
  t.match(stdout, /2 import\(s\) into wiring/);
});
