import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { CommandRunner, ExecTarget } from '../kube/exec.js';

/** How long each of preCommand and postCommand may run (a save-all of a large world takes seconds, not minutes). */
export const HOOK_TIMEOUT_MS = 60_000;
/** Output kept of a hook's stdout and of its stderr, for the answer. */
const HOOK_OUTPUT_BYTES = 4096;
/** Longest stderr quoted in an error's detail. */
const EXCERPT = 300;

export const HookRunSchema = Type.Object({
  exitCode: Type.Union([Type.Integer(), Type.Null()], { description: 'null when it did not finish: see error.' }),
  stdout: Type.String({ description: 'The first 4 KiB.' }),
  stderr: Type.String({ description: 'The first 4 KiB.' }),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it did not finish (timeout, the exec stream failed); null when it did.',
  }),
});
export type HookRun = Static<typeof HookRunSchema>;

export const HooksSchema = Type.Object(
  { preCommand: Type.Union([HookRunSchema, Type.Null()]), postCommand: Type.Union([HookRunSchema, Type.Null()]) },
  { description: "What the profile's snapshot commands did; null for one the profile does not set." },
);
export type Hooks = Static<typeof HooksSchema>;

/** A hook's run; one that could not run or finish carries the error to answer with. */
export interface HookOutcome {
  run: HookRun | null;
  error?: Error;
}

/** Runs hook `argv` in `target` (nothing when the profile sets none), bounded by HOOK_TIMEOUT_MS. */
export async function runHook(
  exec: CommandRunner,
  target: ExecTarget,
  argv: readonly string[] | undefined,
): Promise<HookOutcome> {
  if (argv === undefined) return { run: null };
  const started = performance.now();
  const durationMs = (): number => Math.round(performance.now() - started);
  try {
    const { exitCode, stdout, stderr } = await exec.run(target, argv, {
      timeoutMs: HOOK_TIMEOUT_MS,
      maxOutputBytes: HOOK_OUTPUT_BYTES,
    });
    return { run: { exitCode, stdout, stderr, durationMs: durationMs(), error: null } };
  } catch (err) {
    // Our own errors (timeout, cluster unreachable): their messages show no internals.
    return {
      run: { exitCode: null, stdout: '', stderr: '', durationMs: durationMs(), error: (err as Error).message },
      error: err as Error,
    };
  }
}

const excerpt = (text: string): string => {
  const trimmed = text.trim();
  return trimmed.length > EXCERPT ? `${trimmed.slice(0, EXCERPT)}…` : trimmed;
};

/** How a hook ended, in a few words (for details and audit lines). */
export function described(hook: string, run: HookRun): string {
  if (run.error !== null) return `${hook} did not finish: ${run.error}`;
  const stderr = run.exitCode !== 0 && run.stderr.trim() !== '' ? ` (${excerpt(run.stderr)})` : '';
  return `${hook} exited with code ${run.exitCode}${stderr}`;
}

/** What the snapshot request did, for its audit line: `created <name>`, then any hook that did not exit 0. */
export function snapshotOutcome(created: string | undefined, hooks: Hooks): string {
  const failed = (run: HookRun | null): boolean => run !== null && run.exitCode !== 0;
  const parts = [created !== undefined ? `created ${created}` : 'not created'];
  if (failed(hooks.preCommand))
    parts.push(
      hooks.preCommand?.error !== null ? 'preCommand failed' : `preCommand exit ${hooks.preCommand?.exitCode}`,
    );
  if (failed(hooks.postCommand))
    parts.push(
      hooks.postCommand?.error !== null ? 'postCommand failed' : `postCommand exit ${hooks.postCommand?.exitCode}`,
    );
  return parts.join(', ');
}
