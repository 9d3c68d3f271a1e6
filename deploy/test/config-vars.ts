/**
 * The environment variables a service's configuration loader reads, found in its source rather than
 * by running it (a run reads only the variables of the branches it takes). The loader is the
 * service's `src/config/` (or `src/config.ts`), read whole; what it hands `env` to in another
 * workspace (`httpTimeouts(env)`, `auditExportConfig(env)`) is followed through its imports.
 *
 * A call that passes `env` together with a variable's name (`durationVar(env, 'NAME', ...)`) reads
 * that variable, and the `${name}_FILE` variants its helper builds (`readSecret`); a call that passes
 * `env` without naming one delegates, and its callee is read in turn. `env.NAME` and `env['NAME']`
 * are reads too. A key computed at run time (`env[flag.envVar]`) is returned as `dynamic`, for the
 * caller to resolve: the scan never guesses.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { root } from './render.js';

/** A read whose variable name the source computes, with where it is. */
export interface DynamicRead {
  file: string;
  fn: string;
  expression: string;
}

export interface ConfigVariables {
  names: Set<string>;
  dynamic: DynamicRead[];
  /** Every file read, relative to the repository (the loader's, then those followed). */
  files: string[];
}

const VARIABLE = '[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*';
const LITERAL = new RegExp(`(['"])(${VARIABLE})\\1`, 'g');
const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'typeof', 'await', 'new']);

interface Param {
  name: string;
  type: string;
  defaultLiteral: string | undefined;
}

interface Declaration {
  file: string;
  name: string;
  params: Param[];
  /** From the declaration to its closing brace (overload signatures included). */
  body: string;
}

/** Index of the bracket closing the one at `open`, skipping string and template literals. */
function closing(text: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') {
      i = endOfString(text, i);
    } else if (pairs[c] !== undefined) {
      stack.push(pairs[c]);
    } else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== c) throw new Error(`unbalanced ${c} at ${i}`);
      if (stack.length === 0) return i;
    }
  }
  throw new Error(`no closing bracket for ${text[open] ?? ''} at ${open}`);
}

function endOfString(text: string, start: number): number {
  const quote = text[start]!;
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  throw new Error(`unterminated string at ${start}`);
}

/** The comma-separated arguments (or parameters) between `open` and its closing parenthesis. */
function topLevelList(text: string, open: number): string[] {
  const close = closing(text, open);
  const items: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') i = endOfString(text, i);
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === '<' && /\w$/.test(text.slice(start, i))) depth++;
    else if (c === '>' && text[i - 1] !== '=') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      items.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start, close).trim();
  if (last !== '') items.push(last);
  return items;
}

function parseParam(text: string): Param {
  const match = /^(\w+)\??\s*(?::\s*([\s\S]*?))?\s*(?:=\s*([\s\S]*))?$/.exec(text);
  if (!match) throw new Error(`cannot read the parameter ${text}`);
  const literal = /^(['"])(.*)\1$/.exec(match[3]?.trim() ?? '');
  return { name: match[1]!, type: match[2] ?? '', defaultLiteral: literal?.[2] };
}

/**
 * The code of a TypeScript source without its comments, and each regular-expression literal
 * replaced by `/re/`: neither can then be mistaken for a call or unbalance a bracket.
 */
function codeOf(text: string): string {
  let out = '';
  let last = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "'" || c === '"' || c === '`') {
      const end = endOfString(text, i);
      out += text.slice(i, end + 1);
      i = end;
      last = c;
    } else if (c === '/' && next === '/') {
      i = text.indexOf('\n', i) - 1;
      if (i < 0) break;
    } else if (c === '/' && next === '*') {
      i = text.indexOf('*/', i + 2) + 1;
    } else if (c === '/' && (last === '' || '(,=!&|?:;{}[+'.includes(last) || /\breturn$/.test(out))) {
      let inClass = false;
      let j = i + 1;
      for (; j < text.length && (text[j] !== '/' || inClass); j++) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
      }
      out += '/re/';
      i = j;
      while (/[a-z]/.test(text[i + 1] ?? '')) i++;
      last = '/';
    } else {
      out += c;
      if (!/\s/.test(c)) last = c;
    }
  }
  return out;
}

const sources = new Map<string, string>();
function source(file: string): string {
  let text = sources.get(file);
  if (text === undefined) sources.set(file, (text = codeOf(readFileSync(file, 'utf8'))));
  return text;
}

/** The declarations of `name` in `file` (the first overload's parameters; its body to the closing brace). */
function declaration(file: string, name: string): Declaration | undefined {
  const text = source(file);
  const at = new RegExp(`^(?:export )?(?:async )?function ${name}\\b[^(]*\\(`, 'm').exec(text);
  if (!at) return undefined;
  const open = at.index + at[0].length - 1;
  const params = topLevelList(text, open).map(parseParam);
  // Prettier puts a top-level function's closing brace alone at the start of a line.
  const end = text.indexOf('\n}', open);
  return { file, name, params, body: text.slice(at.index, end < 0 ? undefined : end + 2) };
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return entry.endsWith('.ts') && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** Where `name`, imported by `file`, is declared. */
function resolveImport(file: string, name: string): Declaration | undefined {
  for (const m of source(file).matchAll(/^import\s+\{([^}]*)\}\s+from\s+'([^']+)'/gm)) {
    const imported = m[1]!
      .split(',')
      .map((part) => part.trim().split(/\s+as\s+/))
      .find(([original, local]) => (local ?? original) === name && original !== undefined && !/^type\s/.test(original));
    if (!imported) continue;
    const original = imported[0]!;
    const spec = m[2]!;
    if (spec.startsWith('.')) return declaration(resolve(dirname(file), spec.replace(/\.js$/, '.ts')), original);
    const workspace = /^@gsp\/([^/]+)$/.exec(spec);
    if (!workspace) return undefined;
    const found = tsFiles(join(root, 'packages', workspace[1]!, 'src'))
      .map((candidate) => declaration(candidate, original))
      .filter((d): d is Declaration => d !== undefined);
    if (found.length !== 1) throw new Error(`${spec} declares ${original} ${found.length} times`);
    return found[0];
  }
  return undefined;
}

/** Whether a parameter carries a variable's name (the callee reads what it is given). */
const namesVariable = (param: Param): boolean =>
  param.name !== 'env' && (/\bstring\b/.test(param.type) || param.defaultLiteral !== undefined);

/**
 * The variables `text` reads through `envName`, following delegating calls; `rootFiles` are read
 * whole elsewhere, so calls into them are not followed again.
 */
function scan(
  file: string,
  fn: string,
  text: string,
  envName: string,
  rootFiles: ReadonlySet<string>,
  result: ConfigVariables,
  seen: Set<string>,
): void {
  const add = (name: string): void => void result.names.add(name);
  for (const m of text.matchAll(new RegExp(`\\b${envName}\\.(${VARIABLE})\\b`, 'g'))) add(m[1]!);
  for (const m of text.matchAll(new RegExp(`\\b${envName}\\[\\s*(['"])(${VARIABLE})\\1\\s*\\]`, 'g'))) add(m[2]!);
  for (const m of text.matchAll(new RegExp(`\\b${envName}\\[(?!\\s*['"])([^\\]]*)\\]`, 'g')))
    result.dynamic.push({ file: relative(root, file), fn, expression: `${envName}[${m[1]!}]` });

  for (const call of text.matchAll(/(?<![.\w$])([A-Za-z_$][\w$]*)\s*\(/g)) {
    const callee = call[1]!;
    if (KEYWORDS.has(callee)) continue;
    const open = call.index + call[0].length - 1;
    const args = topLevelList(text, open);
    const envAt = args.indexOf(envName);
    if (envAt < 0 || /\bfunction\s+$/.test(text.slice(Math.max(0, call.index - 9), call.index))) continue;
    const target = declaration(file, callee) ?? resolveImport(file, callee);
    if (target === undefined)
      throw new Error(`${relative(root, file)}: cannot find ${callee}, which is given ${envName}`);
    if (target.params.some(namesVariable)) {
      // A helper that reads the variables it is named: each literal argument, with the `${name}_X` variants it builds.
      target.params.forEach((param, i) => {
        if (!namesVariable(param)) return;
        const arg = args[i];
        const names =
          arg === undefined
            ? param.defaultLiteral === undefined
              ? []
              : [param.defaultLiteral]
            : [...arg.matchAll(LITERAL)].map((l) => l[2]!);
        const suffixes = [...target.body.matchAll(new RegExp(`\\$\\{${param.name}\\}(_[A-Z0-9_]+)`, 'g'))].map(
          (s) => s[1]!,
        );
        for (const name of names) [name, ...suffixes.map((suffix) => name + suffix)].forEach(add);
      });
    } else if (!rootFiles.has(target.file)) {
      const key = `${target.file}#${target.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (!result.files.includes(relative(root, target.file))) result.files.push(relative(root, target.file));
      const inner = target.params[envAt]?.name ?? envName;
      scan(target.file, target.name, target.body, inner, rootFiles, result, seen);
    }
  }
}

/** The variables the configuration loader of `services/<service>` reads. */
export function configVariables(service: string): ConfigVariables {
  const dir = join(root, 'services', service, 'src', 'config');
  const rootFiles = existsSync(dir) ? tsFiles(dir) : [join(root, 'services', service, 'src', 'config.ts')];
  const result: ConfigVariables = { names: new Set(), dynamic: [], files: rootFiles.map((f) => relative(root, f)) };
  const seen = new Set<string>();
  for (const file of rootFiles) scan(file, '(module)', source(file), 'env', new Set(rootFiles), result, seen);
  return result;
}
