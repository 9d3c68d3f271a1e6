// Loaded into every test process (tap's node-arg): at exit, appends one line with the file's wall time
// and the CPU time it and its finished child processes used, to .tap/timing.jsonl. Plain JavaScript, so it
// loads the same whether the test runs from TypeScript source or from its compiled build.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const file = process.argv[1] ?? '';
if (/\.test\.[cm]?[jt]s$/.test(file)) {
  const dir = join(process.cwd(), '.tap');
  process.once('exit', () => {
    const self = process.cpuUsage();
    let children = 0;
    try {
      // /proc/self/stat fields 16 and 17: CPU ticks of children that have been waited for (Linux).
      const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
      children = ((Number(fields[13]) || 0) + (Number(fields[14]) || 0)) * 10;
    } catch {
      // not Linux: children's CPU stays 0
    }
    const line = {
      file: relative(process.cwd(), file),
      wallMs: Math.round(process.uptime() * 1000),
      cpuMs: Math.round((self.user + self.system) / 1000),
      childCpuMs: children,
      at: Date.now(),
    };
    try {
      mkdirSync(dir, { recursive: true });
      appendFileSync(join(dir, 'timing.jsonl'), JSON.stringify(line) + '\n');
    } catch {
      // timing is a report, never a reason to fail a test
    }
  });
}
