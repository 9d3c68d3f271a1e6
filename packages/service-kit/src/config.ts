import { readFileSync } from 'node:fs';

/** A configuration variable that is missing or malformed; the message names it. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** The process environment, or a test's stand-in for it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The trimmed value of NAME; undefined when unset or blank. */
export function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The contents of the file NAME names (a certificate, a key, a roles file); undefined when unset. */
export function readFileVar(env: Env, name: string): string | undefined {
  const file = nonEmpty(env, name);
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(name, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** Reads NAME, or the file named by NAME_FILE (secrets mounted from Kubernetes); never both. */
export function readSecret(env: Env, name: string): string | undefined {
  const direct = nonEmpty(env, name);
  if (direct !== undefined && nonEmpty(env, `${name}_FILE`) !== undefined)
    throw new ConfigError(name, `set either ${name} or ${name}_FILE, not both`);
  return direct ?? readFileVar(env, `${name}_FILE`)?.trim();
}

/** A TCP port, 0 to 65535; `fallback` when unset. */
export function parsePort(env: Env, name: string, fallback: number): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535)
    throw new ConfigError(name, `must be a port number 0-65535, got ${JSON.stringify(raw)}`);
  return port;
}

/** An absolute URL with one of `protocols` (such as `https:`), as given; undefined when unset. */
export function parseUrl(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be an absolute URL');
  }
  if (!protocols.includes(url.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  return raw;
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The one duration grammar of every service: `10` (seconds), `1.5s`, `500ms`, `5m`, `12h` or
 * `30d`, in milliseconds. Undefined for anything else, so callers can name what was wrong.
 */
export function parseDuration(raw: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1000);
  return Number.isFinite(ms) && Number.isSafeInteger(Math.round(ms)) ? Math.round(ms) : undefined;
}

/** NAME as a duration in milliseconds (see `parseDuration`), at least `minMs`; `fallback` when unset. */
export function durationVar(env: Env, name: string, fallback: number, minMs?: number): number;
export function durationVar(env: Env, name: string, fallback: undefined, minMs?: number): number | undefined;
export function durationVar(env: Env, name: string, fallback: number | undefined, minMs = 1): number | undefined {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  const ms = parseDuration(raw);
  if (ms === undefined)
    throw new ConfigError(
      name,
      `must be a duration such as 30s, 500ms, 12h or 30d (a bare number is seconds), got ${JSON.stringify(raw)}`,
    );
  if (ms < minMs) throw new ConfigError(name, `must be at least ${minMs} ms, got ${JSON.stringify(raw)}`);
  return ms;
}

/** NAME as `true` or `false`; `fallback` when unset. Anything else is refused, not read as false. */
export function booleanVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false')
    throw new ConfigError(name, `must be "true" or "false", got ${JSON.stringify(raw)}`);
  return raw === 'true';
}

/** NAME as a whole number from `min` (default 1) to `max`; `fallback` when unset. */
export function integerVar(
  env: Env,
  name: string,
  fallback: number,
  range: { min?: number; max?: number } = {},
): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  const min = range.min ?? 1;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    const rule =
      range.max !== undefined
        ? `a whole number from ${min} to ${max}`
        : min === 1
          ? 'a positive integer'
          : `a whole number of at least ${min}`;
    throw new ConfigError(name, `must be ${rule}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** `value`, read from NAME; a ConfigError saying `message` (why it is needed) when it is unset. */
export function required<T>(value: T | undefined, name: string, message: string): T {
  if (value === undefined) throw new ConfigError(name, message);
  return value;
}
