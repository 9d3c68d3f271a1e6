import { readFileSync } from 'node:fs';

/** A configuration variable that is missing or malformed; the message names it. */
export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
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

/** Reads NAME, or the file named by NAME_FILE (secrets mounted from Kubernetes); never both. */
export function readSecret(env: Env, name: string): string | undefined {
  const direct = nonEmpty(env, name);
  const file = nonEmpty(env, `${name}_FILE`);
  if (direct !== undefined && file !== undefined) throw new ConfigError(name, `set either ${name} or ${name}_FILE, not both`);
  if (file === undefined) return direct;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new ConfigError(`${name}_FILE`, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** A TCP port, 0 to 65535; `fallback` when unset. */
export function parsePort(env: Env, name: string, fallback: number): number {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new ConfigError(name, `must be a port number 0-65535, got ${JSON.stringify(raw)}`);
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
