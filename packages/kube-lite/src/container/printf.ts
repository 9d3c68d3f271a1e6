/**
 * The subset of POSIX `printf FORMAT [ARGUMENT...]` the simulated container runs: `%s`, `%d`
 * (and its twin `%i`), `%%`, the common backslash escapes, and the format reused while
 * arguments remain. Messages are coreutils' (a container's /usr/bin/printf).
 */

export interface ProgramResult {
  code: number;
  stdout: string;
  stderr: string;
}

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};

export function printf(operands: readonly string[]): ProgramResult {
  const [format, ...args] = operands;
  if (format === undefined) return { code: 1, stdout: '', stderr: 'printf: missing operand\n' };
  let stdout = '';
  let stderr = '';
  let code = 0;
  let next = 0;
  const integer = (arg: string | undefined): string => {
    if (arg === undefined || arg.trim() === '') return '0';
    const leading = /^\s*([+-]?\d+)/.exec(arg);
    if (leading && leading[0].length === arg.length) return String(BigInt(leading[1] as string));
    code = 1;
    stderr += leading
      ? `printf: '${arg}': value not completely converted\n`
      : `printf: '${arg}': expected a numeric value\n`;
    return leading ? String(BigInt(leading[1] as string)) : '0';
  };
  for (;;) {
    const passStart = next;
    for (let i = 0; i < format.length; i++) {
      const c = format[i] as string;
      if (c === '\\' && i + 1 < format.length) {
        const escaped = format[++i] as string;
        stdout += ESCAPES[escaped] ?? `\\${escaped}`;
      } else if (c === '%') {
        const conversion = format[++i];
        if (conversion === '%') stdout += '%';
        else if (conversion === 's') stdout += args[next++] ?? '';
        else if (conversion === 'd' || conversion === 'i') stdout += integer(args[next++]);
        else
          return {
            code: 1,
            stdout,
            stderr: `${stderr}printf: %${conversion ?? ''}: invalid conversion specification\n`,
          };
      } else {
        stdout += c;
      }
    }
    // POSIX: the format is reused while arguments remain, unless it consumes none.
    if (next >= args.length || next === passStart) break;
  }
  if (next < args.length)
    stderr += `printf: warning: ignoring excess arguments, starting with '${args[next] as string}'\n`;
  return { code, stdout, stderr };
}
