import { FLAGS } from './registry.js';
import type { FlagDefinition } from './registry.js';
import { ConfigError } from '@gsp/service-kit';

export type FlagSource = 'env' | 'cluster' | 'platform' | 'default';

export interface Resolution {
  value: boolean;
  source: FlagSource;
  envPinned: boolean;
}

export interface StoredValues {
  /** The value pinned by the process environment, if any. */
  env?: boolean | undefined;
  cluster?: boolean | undefined;
  platform?: boolean | undefined;
}

/** Evaluation order, first match wins: env pin, cluster override, platform default, built-in. */
export function resolveFlag(flag: FlagDefinition, values: StoredValues): Resolution {
  const envPinned = values.env !== undefined;
  if (values.env !== undefined) return { value: values.env, source: 'env', envPinned };
  if (values.cluster !== undefined) return { value: values.cluster, source: 'cluster', envPinned };
  if (values.platform !== undefined) return { value: values.platform, source: 'platform', envPinned };
  return { value: flag.defaultValue, source: 'default', envPinned };
}

export class InvalidEnvPinError extends ConfigError {
  readonly code = 'ERR_FLAG_ENV_PIN';
  constructor(
    variable: string,
    readonly raw: string,
  ) {
    super(variable, `must be "true" or "false" when set, got ${JSON.stringify(raw)}`);
  }
}

/**
 * Reads the env pin of a flag. Unset and empty mean "not pinned"; anything other than
 * true/false is a configuration error, so a typo never silently leaves access on.
 */
export function readEnvPin(
  flag: FlagDefinition,
  env: Readonly<Record<string, string | undefined>>,
): boolean | undefined {
  const raw = env[flag.envVar];
  if (raw === undefined || raw.trim() === '') return undefined;
  const normalised = raw.trim().toLowerCase();
  if (normalised === 'true') return true;
  if (normalised === 'false') return false;
  throw new InvalidEnvPinError(flag.envVar, raw);
}

/** The env pins of every registry flag whose variable is set, by flag key; read once, at start. */
export function readEnvPins(env: Readonly<Record<string, string | undefined>>): Map<string, boolean> {
  const pins = new Map<string, boolean>();
  for (const flag of FLAGS) {
    const pin = readEnvPin(flag, env);
    if (pin !== undefined) pins.set(flag.key, pin);
  }
  return pins;
}
