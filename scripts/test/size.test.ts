import t from 'tap';
import { runScript, throwawayTree as tree } from './run-script.js';

const size = (root: string) => runScript('size', root);

/** A function `name` of `lines` lines in all (its signature and closing brace included). */
const fn = (name: string, lines: number): string =>
  `export function ${name}(): number {\n${'  void 0;\n'.repeat(lines - 3)}  return 1;\n}\n`;

/** A route plugin whose one handler is `lines` lines long. */
const route = (lines: number): string =>
  'export default async (app: { route(o: object): void }) => {\n  app.route({\n    handler: async () => {\n' +
  `${'      void 0;\n'.repeat(lines - 2)}    },\n  });\n};\n`;

t.test('functions are measured from their first line to their closing brace, and listed over 80', async (t) => {
  const root = tree(t, {
    'packages/a/src/a.ts': fn('short', 80) + fn('long', 81),
    'services/b/src/routes/b/index.ts': route(25),
  });
  const { code, stdout } = await size(root);
  t.equal(code, 0, stdout);
  t.match(stdout, /^\s+81 {2}packages\/a\/src\/a\.ts:81 {2}long$/m);
  t.notMatch(stdout, /short/);
  t.match(stdout, /longest 81 lines, 1 over 80, 0 over 150; longest route handler 25 lines, 0 over 25/);
});

t.test('it fails on a function over 120 lines, more than 8 over 80, or a route handler over 25', async (t) => {
  const over120 = await size(tree(t, { 'packages/a/src/a.ts': fn('huge', 121) }));
  t.equal(over120.code, 1);
  t.match(over120.stdout, /limits broken: 1 function\(s\) over 120 lines/);
  const nine = Array.from({ length: 9 }, (_, i) => fn(`f${i}`, 90)).join('');
  const many = await size(tree(t, { 'services/s/src/many.ts': nine }));
  t.equal(many.code, 1);
  t.match(many.stdout, /9 functions over 80 lines \(at most 8\)/);
  const handler = await size(tree(t, { 'services/s/src/routes/x/index.ts': route(26) }));
  t.equal(handler.code, 1);
  t.match(handler.stdout, /1 route handler\(s\) over 25 lines/);
  // A feature folder's routes.ts (the API server's shape) is checked as well.
  const feature = await size(tree(t, { 'services/s/src/flags/routes.ts': route(26) }));
  t.equal(feature.code, 1);
  t.match(feature.stdout, /1 route handler\(s\) over 25 lines/);
});

t.test("kube-lite's functions are listed but not counted; gen/, dist/ and tests are skipped", async (t) => {
  const { code, stdout } = await size(
    tree(t, {
      'packages/kube-lite/src/server.ts': fn('big', 200),
      'packages/a/src/gen/out.ts': fn('generated', 200),
      'packages/a/dist/src/out.ts': fn('built', 200),
      'scripts/test/x.test.ts': fn('aTest', 200),
      'scripts/tool.ts': fn('tool', 82),
    }),
  );
  t.equal(code, 0, stdout);
  t.match(stdout, /big \(kube-lite, not counted\)/);
  t.match(stdout, /scripts\/tool\.ts:1 {2}tool/);
  t.notMatch(stdout, /generated|built|aTest/);
});
