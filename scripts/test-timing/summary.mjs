// Prints where `npm test`'s time went, from the lines record.mjs left in .tap/timing.jsonl: the run's wall
// time, what the test processes and their children spent on the CPU, and the slowest files, so that a
// file that grows is seen the day it grows. Plain JavaScript, like record.mjs. `--top N` shows N files.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const path = join(process.cwd(), '.tap', 'timing.jsonl');
const topArg = process.argv.indexOf('--top');
const top = topArg === -1 ? 15 : Number(process.argv[topArg + 1]) || 15;

if (!existsSync(path)) {
  console.log('# timing: no .tap/timing.jsonl (the tests did not run)');
  process.exit(0);
}

/** @type {{ file: string, wallMs: number, cpuMs: number, childCpuMs: number, at: number }[]} */
const all = readFileSync(path, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
if (all.length === 0) process.exit(0);
// A file run twice into the same log (a rerun without a clean start) counts once, as it ran last.
const lines = [...new Map(all.map((line) => [line.file, line])).values()];

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const sum = (pick) => lines.reduce((total, line) => total + pick(line), 0);
const wall = Math.max(...lines.map((l) => l.at)) - Math.min(...lines.map((l) => l.at - l.wallMs));
const cpu = sum((l) => l.cpuMs + l.childCpuMs);
const cores = availableParallelism();

console.log(`# timing: ${lines.length} test files in ${seconds(wall)} of wall time`);
console.log(
  `#   files' own wall times add up to ${seconds(sum((l) => l.wallMs))}; CPU ${seconds(cpu)} ` +
    `(test processes ${seconds(sum((l) => l.cpuMs))}, their child processes ${seconds(sum((l) => l.childCpuMs))}), ` +
    `${Math.round((100 * cpu) / (wall * cores))}% of ${cores} cores`,
);
console.log(`#   slowest ${Math.min(top, lines.length)} (wall, CPU of the file and its children):`);
for (const line of [...lines].sort((a, b) => b.wallMs - a.wallMs).slice(0, top)) {
  console.log(
    `#   ${seconds(line.wallMs).padStart(8)} ${seconds(line.cpuMs + line.childCpuMs).padStart(8)}  ${line.file}`,
  );
}
