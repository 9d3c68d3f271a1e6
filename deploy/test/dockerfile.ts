/** The Dockerfiles of deploy/docker/, read as the image checks need them (what smoke.sh replays). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './render.js';
import type { Env } from './render.js';

export interface Dockerfile {
  /** The leading comment, `#` stripped. */
  header: string;
  /** Each stage's base image. */
  stages: string[];
  /** The build stage's RUN steps, split at `&&`, in order. */
  steps: string[];
  /** Every RUN line's text, one a line. */
  run: string;
  /** The last (runtime) stage's ENV, EXPOSE, USER, CMD and `COPY --from` lines. */
  env: Env;
  expose: number[];
  user: string | undefined;
  cmd: string[];
  copies: { from: string; source: string; target: string }[];
}

export const dockerfilePath = (name: string): string => join(root, 'deploy', 'docker', `${name}.Dockerfile`);

/** A Dockerfile, continuation lines joined; only the exec (JSON) form of CMD and `K=V` pairs of ENV. */
export function readDockerfile(path: string): Dockerfile {
  const text = readFileSync(path, 'utf8');
  const header = /^(?:#.*\n)+/.exec(text)?.[0].replace(/^# ?/gm, '') ?? '';
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const result: Dockerfile = {
    header,
    stages: [],
    steps: [],
    env: {},
    expose: [],
    user: undefined,
    cmd: [],
    run: '',
    copies: [],
  };
  for (const line of lines.map((l) => l.trim())) {
    const [instruction = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (instruction === 'FROM') {
      result.stages.push(rest[0] ?? '');
      result.env = {};
      result.expose = [];
      result.copies = [];
    } else if (instruction === 'ENV') {
      for (const pair of rest) {
        const at = pair.indexOf('=');
        result.env[pair.slice(0, at)] = pair.slice(at + 1);
      }
    } else if (instruction === 'EXPOSE') result.expose.push(...rest.map(Number));
    else if (instruction === 'USER') result.user = args;
    else if (instruction === 'CMD') result.cmd = JSON.parse(args) as string[];
    else if (instruction === 'COPY' && rest[0]?.startsWith('--from='))
      result.copies.push({ from: rest[0].slice('--from='.length), source: rest[1] ?? '', target: rest[2] ?? '' });
    else if (instruction === 'RUN') {
      result.run += `${args}\n`;
      if (result.stages.length === 1) result.steps.push(...args.split('&&').map((step) => step.trim()));
    }
  }
  return result;
}
