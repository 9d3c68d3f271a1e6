/**
 * `npm test`'s runner: every test file (the `tap.include` globs of the root package.json) in a Node process of
 * its own, `TEST_JOBS` at a time (default: one per core), longest first by the last run's times, then a per-file
 * timing summary. `scripts/run-tests.ts <files...>` runs just those.
 *
 * Why not tap's own runner: it starts every test process with `--enable-source-maps` and a module-loader hook
 * (@tapjs/processinfo, also put into NODE_OPTIONS so every process a test starts inherits it), whether coverage is
 * on or not. A loader hook sends every module load through a worker thread: measured on this 2-core machine, a
 * control-plane test file spent 9.6 s of CPU under those flags and 6.9 s without them, and 5.1 s from its compiled
 * build. Tests still use tap's library, and `npx tap <file>` (tap's runner and reporter) still works for one file.
 *
 * With `--compiled` (as `npm test` runs it, after `tsc -b` built every workspace), a test file runs from its
 * compiled twin (`<workspace>/dist/test/x.test.js`) when there is one at least as new as the source, so no loader
 * hook is needed at all; otherwise, and without the flag, from source through tsx.
 * Output: one line per file, the whole TAP output of a file that failed, and the summary.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { globSync } from 'glob';

const ROOT = resolve(import.meta.dirname, '..');
const TIMING = join(ROOT, '.tap', 'timing.jsonl');
const RECORD = `--import=${join(ROOT, 'scripts', 'test-timing', 'record.mjs')}`;
const SOURCE_ARGS = ['--conditions=@gsp/source', '--import=tsx'];
/** A file still running after this is killed and fails (tap's own per-test timeouts apply inside it). */
const FILE_LIMIT_MS = 10 * 60_000;

interface Result {
  file: string;
  ok: boolean;
  ms: number;
  output: string;
  /** Assertions, from the `# { total: N, pass: M, ... }` line tap prints at the end of a file. */
  total: number;
  pass: number;
}

function counts(output: string): { total: number; pass: number } {
  const last = [...output.matchAll(/^# \{ total: (\d+), pass: (\d+)/gm)].at(-1);
  return { total: Number(last?.[1] ?? 0), pass: Number(last?.[2] ?? 0) };
}

function testFiles(args: string[]): string[] {
  if (args.length > 0) return args.map((file) => relative(ROOT, resolve(file)));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { tap: { include: string[] } };
  return pkg.tap.include.flatMap((pattern) => globSync(pattern, { cwd: ROOT, ignore: '**/node_modules/**' })).sort();
}

/** The compiled twin of `<workspace>/test/x.test.ts`, when it is up to date. */
function compiledTwin(file: string): string | undefined {
  const match = /^(.*?)\/test\/(.*)\.ts$/.exec(file);
  if (match === null) return undefined;
  const twin = `${match[1]}/dist/test/${match[2]}.js`;
  const twinPath = join(ROOT, twin);
  if (!existsSync(twinPath) || statSync(twinPath).mtimeMs < statSync(join(ROOT, file)).mtimeMs) return undefined;
  return twin;
}

/** The last run's wall time per file, to start the longest first (a long file started last makes a long tail). */
function lastTimes(): Map<string, number> {
  const times = new Map<string, number>();
  if (!existsSync(TIMING)) return times;
  for (const line of readFileSync(TIMING, 'utf8').split('\n')) {
    try {
      const { file, wallMs } = JSON.parse(line) as { file: string; wallMs: number };
      times.set(file.replace(/\/dist\/test\/(.*)\.js$/, '/test/$1.ts'), wallMs);
    } catch {
      // a torn line
    }
  }
  return times;
}

function run(file: string): Promise<Result> {
  const twin = compiled ? compiledTwin(file) : undefined;
  const args = twin === undefined ? [...SOURCE_ARGS, RECORD, file] : [RECORD, twin];
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, TAP: '1', TAP_TIMEOUT: process.env.TAP_TIMEOUT ?? '120' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const limit = setTimeout(() => {
      chunks.push(Buffer.from(`\nnot ok - ${file} still running after ${FILE_LIMIT_MS / 60_000} minutes: killed\n`));
      child.kill('SIGKILL');
    }, FILE_LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const output = Buffer.concat(chunks).toString();
      const ok = code === 0 && signal === null && !/^\s*not ok /m.test(output);
      done({ file: twin ?? file, ok, ms: performance.now() - started, output, ...counts(output) });
    });
  });
}

const compiled = process.argv.includes('--compiled');

async function main(): Promise<number> {
  const named = process.argv.slice(2).filter((arg) => arg !== '--compiled');
  const files = testFiles(named);
  const missing = files.filter((file) => !existsSync(join(ROOT, file)));
  if (missing.length > 0) {
    console.error(`no such test file: ${missing.join(', ')}`);
    return 2;
  }
  const times = lastTimes();
  const size = (file: string): number => times.get(file) ?? statSync(join(ROOT, file)).size;
  const queue = [...files].sort((a, b) => size(b) - size(a));
  if (named.length === 0) rmSync(TIMING, { force: true });
  const jobs = Math.max(1, Number(process.env.TEST_JOBS) || availableParallelism());
  console.log(`TAP version 14\n# ${files.length} test files, ${jobs} at a time`);
  const failed: Result[] = [];
  let n = 0;
  let total = 0;
  let pass = 0;
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await run(file);
      n += 1;
      total += result.total;
      pass += result.pass;
      const time = `# time=${Math.round(result.ms)}ms`;
      if (result.ok) console.log(`ok ${n} - ${result.file} ${time}`);
      else {
        failed.push(result);
        console.log(
          `# Subtest: ${result.file}\n${result.output.replace(/^/gm, '    ')}\nnot ok ${n} - ${result.file} ${time}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  console.log(`1..${files.length}`);
  console.log(
    `# ${files.length - failed.length} of ${files.length} test files passed; assertions: ${pass} of ${total}`,
  );
  for (const result of failed) {
    console.log(`# failed: ${result.file}`);
    for (const line of result.output
      .split('\n')
      .filter((l) => /^\s*not ok /.test(l))
      .slice(0, 10))
      console.log(`#   ${line.trim().slice(0, 200)}`);
  }
  if (named.length === 0)
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-timing', 'summary.mjs')], { stdio: 'inherit' });
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await main();
