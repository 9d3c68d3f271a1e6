const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration such as `10` (seconds), `10s`, `500ms`, `5m`, `12h` or `30d` into
 * milliseconds. Returns undefined for anything else so callers can name the variable.
 */
export function parseDuration(raw: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const ms = amount * (UNITS[match[2] ?? 's'] ?? 1000);
  return Number.isFinite(ms) && Number.isSafeInteger(Math.round(ms)) ? Math.round(ms) : undefined;
}
