import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeEntry, workspaceDir } from '@gsp/service-kit/testing/entry';
import t from 'tap';
import { Spool } from '../src/audit-spool/index.js';

/** The spool's module, from source through tsx or from its build, as this file runs. */
const spoolEntry = nodeEntry(new URL('../src/audit-spool/index.ts', import.meta.url));
const spoolModule = pathToFileURL(spoolEntry.at(-1) as string).href;
const repo = join(workspaceDir(import.meta.url), '..', '..');
const options = { maxBytes: 1 << 30, full: 'block' as const, readers: ['webhook', 'otlp'], segmentBytes: 64 * 1024 };

/**
 * Appends as fast as it can, printing `ok <id>` once each append is written, while each reader is
 * read in batches and acknowledged as a sink would (`acking <reader> <id>` before, `acked <reader> <id>` after).
 */
const child = (dir: string) => `
const { Spool } = await import(${JSON.stringify(spoolModule)});
const spool = await Spool.open({ dir: ${JSON.stringify(dir)}, ...${JSON.stringify(options)} });
const sink = async (reader, max) => {
  for (;;) {
    const batch = await spool.read(reader, max, { wait: true });
    const id = batch[batch.length - 1].id;
    process.stdout.write('acking ' + reader + ' ' + id + '\\n');
    await spool.ack(reader, id);
    process.stdout.write('acked ' + reader + ' ' + id + '\\n');
  }
};
sink('webhook', 97);
sink('otlp', 1000);
let n = 0;
const burst = () => {
  let out = '';
  for (let i = 0; i < 100; i++) {
    const result = spool.append({ n: n++, action: 'gameservers.create', path: '/api/v1/gameservers', status: 201 });
    if (result.ok) out += 'ok ' + result.id + '\\n';
  }
  // Reported once written (group commit): what is reported ok must survive the kill.
  spool.whenWritten(() => {
    process.stdout.write(out);
    setImmediate(burst);
  });
};
burst();
`;

interface Run {
  ok: string[];
  acking: Map<string, string>;
  acked: Map<string, string>;
}

/** Runs the child until it has reported `appends` appends and an ack by each reader, then SIGKILLs it. */
async function runAndKill(dir: string, appends: number): Promise<Run> {
  const child_ = spawn(process.execPath, [...spoolEntry.slice(0, -1), '--input-type=module', '-e', child(dir)], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = { ok: [], acking: new Map(), acked: new Map() };
  let rest = '';
  let stderr = '';
  child_.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child_.once('exit', () => resolve()));
  child_.stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() as string;
    for (const line of lines) {
      const [kind, a, b] = line.split(' ') as [string, string, string];
      if (kind === 'ok') run.ok.push(a);
      else (kind === 'acking' ? run.acking : run.acked).set(a, b);
    }
    if (run.ok.length >= appends && run.acked.size === 2) child_.kill('SIGKILL');
  });
  // Never left running, even if it stops reporting.
  const deadline = setTimeout(() => child_.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(deadline);
  if (run.ok.length < appends || run.acked.size < 2) throw new Error(`the child ended early: ${stderr}`);
  return run;
}

const seqOf = (id: string) => Number(id.split('-')[1]);

/** Everything a reader gets from a reopened spool, acknowledging as it goes. */
async function readAll(spool: Spool, reader: string): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const batch = await spool.read(reader, 5000);
    const last = batch.at(-1);
    if (!last) return ids;
    ids.push(...batch.map((r) => r.id));
    await spool.ack(reader, last.id);
  }
}

t.test('after SIGKILL mid-run every record answered ok is there once per reader, in order', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'audit-spool-crash-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [round, appends] of [15_000, 25_000, 8_000].entries()) {
    const run = await runAndKill(dir, appends);
    const lastReported = seqOf(run.ok.at(-1) as string);
    const spool = await Spool.open({ dir, ...options });
    for (const reader of options.readers) {
      const got = await readAll(spool, reader);
      const lastAcked = seqOf(run.acked.get(reader) as string);
      const lastAcking = seqOf(run.acking.get(reader) as string);
      const name = `round ${round}, ${reader}`;
      t.ok(
        got.every((id, i) => i === 0 || seqOf(id) > seqOf(got[i - 1] as string)),
        `${name}: ${got.length} records, in order, none twice`,
      );
      // Resumes after its last persisted ack: the last one that returned, or the one under way at the kill.
      const position = got.length > 0 ? seqOf(got[0] as string) - 1 : lastAcking;
      t.ok(position >= lastAcked && position <= lastAcking, `${name}: resumes after ${position}`);
      const expected = run.ok.filter((id) => seqOf(id) > position);
      const reported = new Set(run.ok);
      t.same(
        got.filter((id) => reported.has(id)),
        expected,
        `${name}: every record reported ok after the position is there`,
      );
      const extra = got.filter((id) => !reported.has(id));
      t.ok(
        extra.length <= 100 && extra.every((id) => seqOf(id) > lastReported),
        `${name}: the ${extra.length} others were appended after the last report (the burst being printed)`,
      );
    }
    await spool.close();
  }
});
