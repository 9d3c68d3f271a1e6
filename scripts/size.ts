/**
 * `npm run -s size [root]`: the length of every function in the workspaces' sources, measured on the
 * TypeScript compiler's parse (not a regular expression, so strings, comments and nested braces
 * cannot fool it). Lists the functions over 80 lines and the route handlers over 25, prints the
 * totals and exits 1 when a limit is broken (issue 26):
 * - no function outside kube-lite longer than 120 lines;
 * - at most 8 functions outside kube-lite longer than 80 lines;
 * - no route handler longer than 25 lines.
 * A function's length is its lines from its first token to its closing brace, both included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The repository measured: the one this script is in, or the directory given (the tests' small trees). */
const ROOT = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const LONG = 80;
const VERY_LONG = 150;
const MAX = 120;
const MAX_LONG = 8;
const MAX_HANDLER = 25;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'gen', 'test', '.tap', '.data']);
const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'route']);

interface Measured {
  file: string;
  line: number;
  name: string;
  lines: number;
  handler: boolean;
  kubeLite: boolean;
}

/** The entries of `dir`; none when it does not exist (a workspace without `src`). */
function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function sourceFiles(dir: string): string[] {
  return entriesOf(dir).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP_DIRS.has(entry.name) ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function roots(): string[] {
  const srcOf = (group: string) =>
    entriesOf(join(ROOT, group))
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(ROOT, group, entry.name, 'src'));
  return [...srcOf('packages'), ...srcOf('services'), join(ROOT, 'scripts')];
}

function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText();
  }
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

/** A function passed to app.get/post/put/patch/delete/route, or a `handler:` property. */
function isRouteHandler(node: ts.FunctionLikeDeclaration): boolean {
  const parent = node.parent;
  if (ts.isCallExpression(parent) && parent.arguments.some((argument) => argument === node)) {
    const callee = parent.expression;
    return ts.isPropertyAccessExpression(callee) && ROUTE_METHODS.has(callee.name.text);
  }
  if (ts.isPropertyAssignment(parent)) return parent.name.getText() === 'handler';
  return ts.isMethodDeclaration(node) && node.name.getText() === 'handler';
}

function measure(path: string): Measured[] {
  const file = relative(ROOT, path);
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const inService = /^services\/[^/]+\/src\//.test(file);
  const kubeLite = file.startsWith('packages/kube-lite/');
  const found: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      found.push({
        file,
        line: first + 1,
        name: nameOf(fn),
        lines: last - first + 1,
        handler: inService && isRouteHandler(fn),
        kubeLite,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const all = roots().flatMap(sourceFiles).sort().flatMap(measure);
const counted = all.filter((fn) => !fn.kubeLite);
const long = counted.filter((fn) => fn.lines > LONG);
const tooLong = counted.filter((fn) => fn.lines > MAX);
const longHandlers = all.filter((fn) => fn.handler && fn.lines > MAX_HANDLER);
const where = (fn: Measured) => `${fn.file}:${fn.line}`;

console.log(`functions over ${LONG} lines:`);
for (const fn of all.filter((each) => each.lines > LONG).sort((a, b) => b.lines - a.lines)) {
  const note = fn.kubeLite ? ' (kube-lite, not counted)' : fn.lines > MAX ? ` (over ${MAX})` : '';
  console.log(`  ${String(fn.lines).padStart(4)}  ${where(fn)}  ${fn.name}${note}`);
}
console.log(`route handlers over ${MAX_HANDLER} lines:`);
for (const fn of longHandlers.sort((a, b) => b.lines - a.lines)) {
  console.log(`  ${String(fn.lines).padStart(4)}  ${where(fn)}`);
}
const max = counted.reduce((top, fn) => Math.max(top, fn.lines), 0);
const handlerMax = all.filter((fn) => fn.handler).reduce((top, fn) => Math.max(top, fn.lines), 0);
console.log(
  `outside kube-lite: ${counted.length} functions, longest ${max} lines, ${long.length} over ${LONG}, ` +
    `${counted.filter((fn) => fn.lines > VERY_LONG).length} over ${VERY_LONG}; ` +
    `longest route handler ${handlerMax} lines, ${longHandlers.length} over ${MAX_HANDLER}`,
);

const broken = [
  tooLong.length > 0 && `${tooLong.length} function(s) over ${MAX} lines`,
  long.length > MAX_LONG && `${long.length} functions over ${LONG} lines (at most ${MAX_LONG})`,
  longHandlers.length > 0 && `${longHandlers.length} route handler(s) over ${MAX_HANDLER} lines`,
].filter((reason): reason is string => typeof reason === 'string');
if (broken.length > 0) {
  console.log(`limits broken: ${broken.join('; ')}`);
  process.exitCode = 1;
}
