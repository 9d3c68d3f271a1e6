/**
 * `npm run -s cycles`: finds import circles in every workspace (packages/*, services/*, scripts,
 * deploy), tests and benches included. Each file's imports are read from the TypeScript
 * compiler's parse, `import type`, `export ... from`, `import()` and `require` alike (a circle
 * of types still makes a reader follow it round), and resolved as the compiler resolves them
 * with that workspace's tsconfig (the `@gsp/source` condition, so `@gsp/*` lands on sources and
 * a circle across workspaces is found too). Prints every circle, shortest path first.
 *
 * Then the same one level up, per workspace: each file under `src/` stands for its folder (the
 * first path segment under src/; the files directly in it are the folder `.`, but for a
 * service's top-level wiring, `app.ts`, `index.ts`, `routes.ts` and `server.ts`, each its own),
 * and a circle between folders is printed with one file import per step. In `services/*` a
 * folder other than `plugins/` may not import `plugins/` or that wiring: the wiring imports the
 * features, never the reverse. Exits 1 on any circle or such import. `scripts/cycles.ts <root>`
 * reads another tree (the test's fixtures).
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
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

/** Each file read -> the workspace whose tsconfig includes it (real paths). */
const owners = new Map<string, string>();

/** File -> the repository's files it imports (real paths, so a workspace link is its sources). */
function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const dir of workspaces()) {
    const { options, fileNames } = project(dir);
    const host = ts.createCompilerHost(options);
    for (const file of fileNames) {
      if (file.endsWith('.d.ts') || /\.(json|js|mjs|cjs)$/.test(file)) continue;
      const from = realpathSync(file);
      owners.set(from, realpathSync(dir));
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

/** A service's wiring: the folder `plugins/` and these files directly in its `src/` (index.ts: its package entry). */
const WIRING_FILES = new Set(['app.ts', 'index.ts', 'routes.ts', 'server.ts']);

const isService = (workspace: string): boolean => relative(ROOT, dirname(workspace)) === 'services';

/**
 * A file's folder under its workspace's `src/`: the first path segment there, `.` for the files
 * directly in it, except a service's top-level wiring files, each a node of its own: they import
 * every folder by design, and that nothing imports them back is checked on its own.
 */
function folderOf(file: string): { workspace: string; folder: string } | undefined {
  const workspace = owners.get(file);
  if (workspace === undefined) return undefined;
  const path = relative(join(workspace, 'src'), file);
  if (path.startsWith('..') || isAbsolute(path)) return undefined;
  const parts = path.split(sep);
  if (parts.length > 1) return { workspace, folder: parts[0]! };
  return { workspace, folder: isService(workspace) && WIRING_FILES.has(path) ? path : '.' };
}

/** A folder as a graph node: `services/x/src/auth`, `services/x/src/.` for the files directly in src/. */
const folderName = (workspace: string, folder: string): string => `${relative(ROOT, workspace)}/src/${folder}`;
/** The folder part of a node, as printed under its workspace's heading. */
const folderPart = (node: string): string => node.slice(node.lastIndexOf('/src/') + '/src/'.length);

/**
 * Folder -> the folders of its own workspace it imports, each edge with one file import that makes
 * it (so a reader sees where to cut). Imports across workspaces are the file graph's business.
 */
function folderGraph(files: Map<string, Set<string>>): {
  graph: Map<string, Set<string>>;
  because: Map<string, [string, string]>;
} {
  const graph = new Map<string, Set<string>>();
  const because = new Map<string, [string, string]>();
  for (const [from, targets] of files) {
    const source = folderOf(from);
    if (!source) continue;
    const node = folderName(source.workspace, source.folder);
    const edges = graph.get(node) ?? new Set<string>();
    graph.set(node, edges);
    for (const to of targets) {
      const target = folderOf(to);
      if (!target || target.workspace !== source.workspace || target.folder === source.folder) continue;
      const other = folderName(target.workspace, target.folder);
      edges.add(other);
      if (!because.has(`${node}\0${other}`)) because.set(`${node}\0${other}`, [from, to]);
    }
  }
  return { graph, because };
}

/**
 * Imports that point up, in `services/*`: from a domain folder (or a shared file in src/) into
 * `plugins/` or the top-level wiring. Wiring may import domain folders; never the reverse.
 */
function upwardImports(files: Map<string, Set<string>>): [string, string][] {
  const isWiring = (file: string): boolean => {
    const at = folderOf(file);
    return at !== undefined && isService(at.workspace) && (at.folder === 'plugins' || WIRING_FILES.has(at.folder));
  };
  const found: [string, string][] = [];
  for (const [from, targets] of files) {
    if (!folderOf(from) || isWiring(from)) continue;
    for (const to of targets) if (owners.get(to) === owners.get(from) && isWiring(to)) found.push([from, to]);
  }
  return found.sort(([a], [b]) => a.localeCompare(b));
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

const folders = folderGraph(graph);
const folderCircles = components(folders.graph);
for (const component of folderCircles) {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const path = circleThrough(start, members, folders.graph);
  const workspace = start.slice(0, start.lastIndexOf('/src/') + '/src'.length);
  console.log(`folder import circle of ${component.length} folder(s) (in ${workspace}, . is src/ itself):`);
  console.log(`  ${path.map(folderPart).join(' -> ')}`);
  for (let i = 0; i + 1 < path.length; i++) {
    const [from, to] = folders.because.get(`${path[i]}\0${path[i + 1]}`)!;
    console.log(`    ${folderPart(path[i]!)} -> ${folderPart(path[i + 1]!)}: ${name(from)} imports ${name(to)}`);
  }
  const others = component.filter((f) => !path.includes(f));
  if (others.length > 0) console.log(`  and with them: ${others.map(folderPart).sort().join(', ')}`);
}

const upward = upwardImports(graph);
for (const [from, to] of upward) console.log(`import into a service's wiring: ${name(from)} imports ${name(to)}`);

console.log(
  `${graph.size} files read in ${workspaces().length} workspaces: ${circles.length} import circle(s), ` +
    `${folderCircles.length} folder circle(s), ${upward.length} import(s) into wiring`,
);
if (circles.length > 0 || folderCircles.length > 0 || upward.length > 0) process.exitCode = 1;
