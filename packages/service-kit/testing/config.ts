import { ConfigError } from '../src/config.js';
import type { Env } from '../src/config.js';

/**
 * The variable `load` refuses `env` for (its `ConfigError` names it), or undefined when it
 * accepts it; any other error is thrown on.
 */
export function refusedVariable(load: (env: Env) => unknown, env: Env): string | undefined {
  try {
    load(env);
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err.variable;
    throw err;
  }
}

/** What `checkRefusals` needs of a test. */
export interface RefusalTest {
  equal(found: unknown, wanted: unknown, message: string): unknown;
}

/** Asserts that `load` refuses each environment of `cases`, naming the variable beside it. */
export function checkRefusals(t: RefusalTest, load: (env: Env) => unknown, cases: readonly [Env, string][]): void {
  for (const [env, variable] of cases) t.equal(refusedVariable(load, env), variable, JSON.stringify(env));
}
