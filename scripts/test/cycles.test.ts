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
