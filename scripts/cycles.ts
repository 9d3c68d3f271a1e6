/**
 * `npm run -s cycles`: finds import circles in every workspace (packages/*, services/*, scripts,
 * deploy), tests and benches included. Each file's imports are read from the TypeScript
 * compiler's parse, `import type`, `export ... from`, `import()` and `require` alike (a circle
 * of types still makes a reader follow it round), and resolved as the compiler resolves them
 * with that workspace's tsconfig (the `@gsp/source` condition, so `@gsp/*` lands on sources and
 * a circle across workspaces is found too). Prints every circle, shortest path first, and exits 1
 * if there is one. `scripts/cycles.ts <root>` reads another tree (the test's fixtures).
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The repository; a test passes a fixture's root as the first argument. */
const ROOT = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));

/** Every workspace directory that has a tsconfig.json. */
function workspaces(): string[] {
  const children = (group: string): string[] =>
    (existsSync(join(ROOT, group)) ? readdirSync(join(ROOT, group), { withFileTypes: true }) : [])
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(ROOT, group, entry.name));
  return [...children('packages'), ...children('services'), join(ROOT, 'scripts'), join(ROOT, 'deploy')].filter((dir) =>
    existsSync(join(dir, 'tsconfig.json')),
  );
}

/** The workspace's compiler options and files, as `tsc -b` sees them. */
function project(dir: string): ts.ParsedCommandLine {
  const configPath = join(dir, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, dir, undefined, configPath);
}

/** Module specifiers a file imports or re-exports, types included. */
function specifiers(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      if (ts.isStringLiteral(expression)) found.push(expression.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal)) found.push(literal.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const inRepo = (path: string): boolean =>
  !relative(ROOT, path).startsWith('..') && !/(^|\/)(node_modules|dist)\//.test(relative(ROOT, path));

/** File -> the repository's files it imports (real paths, so a workspace link is its sources). */
function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const dir of workspaces()) {
    const { options, fileNames } = project(dir);
    const host = ts.createCompilerHost(options);
    for (const file of fileNames) {
      if (file.endsWith('.d.ts') || /\.(json|js|mjs|cjs)$/.test(file)) continue;
      const from = realpathSync(file);
      const edges = graph.get(from) ?? new Set<string>();
      graph.set(from, edges);
      for (const specifier of specifiers(file)) {
        const resolved = ts.resolveModuleName(specifier, file, options, host).resolvedModule;
        // A workspace is reached through its node_modules link: an external import to the compiler.
        if (!resolved) continue;
        const to = realpathSync(resolved.resolvedFileName);
        if (inRepo(to) && !to.endsWith('.d.ts')) edges.add(to);
      }
    }
  }
  return graph;
}

/** Strongly connected components (Tarjan, iterative): every file in one can reach every other. */
function components(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edges: Iterator<string> }[] = [];
    const enter = (node: string): void => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: (graph.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.edges.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || graph.get(frame.node)?.has(frame.node)) found.push(component);
    }
  }
  return found;
}

/** The shortest way round from `start` back to itself, inside its component. */
function circleThrough(start: string, members: Set<string>, graph: Map<string, Set<string>>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}

const graph = importGraph();
const circles = components(graph);
const name = (path: string): string => relative(ROOT, path);
for (const component of circles) {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  console.log(`import circle of ${component.length} file(s) (in ${name(dirname(start))}):`);
  console.log(`  ${circleThrough(start, members, graph).map(name).join('\n    -> ')}`);
  if (component.length > 2)
    console.log(
      `  and with it: ${component
        .filter((f) => f !== start)
        .map(name)
        .sort()
        .join(', ')}`,
    );
}
console.log(`${graph.size} files read in ${workspaces().length} workspaces: ${circles.length} import circle(s)`);
if (circles.length > 0) process.exitCode = 1;
