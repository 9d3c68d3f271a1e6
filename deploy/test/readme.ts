/**
 * deploy/README.md as the tests read it: its fenced code blocks, a section's `sh` blocks, and a
 * command run as an operator's shell would run it (bash without rc files, failing on the first error).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './render.js';

export const readme = readFileSync(join(root, 'deploy', 'README.md'), 'utf8');

/** The fenced code blocks of a Markdown text, with their info string. */
export function fencedBlocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** The bodies of the `sh` blocks under one `## ` heading of the README. */
export function sectionShBlocks(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`deploy/README.md has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return fencedBlocks(readme.slice(start, end < 0 ? undefined : end))
    .filter((block) => block.lang === 'sh')
    .map((block) => block.body);
}

/** A block's commands, one per line, continuation lines joined and blank lines dropped. */
export const shellLines = (body: string): string[] =>
  body
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program (60 s at most); resolves with its exit code and output, never rejects. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, timeout: 60_000, maxBuffer: 32 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr }),
    );
  });
}

/** Runs `script` in bash as pasted into a shell: no rc files, `-euo pipefail`. */
export const bash = (script: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Run> =>
  run('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script], options);
