import { ConfigError, durationVar, nonEmpty } from '@gsp/service-kit';
import type { Env } from '@gsp/service-kit';
import { MAX_KEY_TTL_MS, MAX_KEY_TTL_TEXT } from '../apikeys/keys.js';

const MAX_CONSOLE_TICKET_TTL_MS = 5 * 60_000;

/** `APIKEY_MAX_TTL`: the longest lifetime a key may be given, and that of a key asked without one. */
export function readApikeyMaxTtl(env: Env): number | undefined {
  const apikeyMaxTtlMs = durationVar(env, 'APIKEY_MAX_TTL', undefined);
  if (apikeyMaxTtlMs !== undefined && apikeyMaxTtlMs > MAX_KEY_TTL_MS) {
    const raw = JSON.stringify(nonEmpty(env, 'APIKEY_MAX_TTL'));
    throw new ConfigError('APIKEY_MAX_TTL', `must be at most ${MAX_KEY_TTL_TEXT}, got ${raw}`);
  }
  return apikeyMaxTtlMs;
}

/** `CONSOLE_TICKET_TTL`: a ticket is a credential in a URL, so it lives seconds, and minutes at most. */
export function readConsoleTicketTtl(env: Env): number {
  const consoleTicketTtlMs = durationVar(env, 'CONSOLE_TICKET_TTL', 30_000, 100);
  if (consoleTicketTtlMs > MAX_CONSOLE_TICKET_TTL_MS) {
    throw new ConfigError(
      'CONSOLE_TICKET_TTL',
      `must be at most 5m, got ${JSON.stringify(nonEmpty(env, 'CONSOLE_TICKET_TTL'))}`,
    );
  }
  return consoleTicketTtlMs;
}

/** `APIKEY_PREFIX`: begins every key and names its Secrets (`<prefix>-apikey-<name>`). */
export function readApikeyPrefix(env: Env): string {
  const apikeyPrefix = nonEmpty(env, 'APIKEY_PREFIX') ?? 'gsp';
  if (!/^[a-z][a-z0-9]{0,15}$/.test(apikeyPrefix))
    throw new ConfigError('APIKEY_PREFIX', 'must be 1-16 lower-case letters and digits, starting with a letter');
  return apikeyPrefix;
}
