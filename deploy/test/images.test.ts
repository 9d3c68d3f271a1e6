import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { FLAGS } from '@gsp/flags-client';
import { load, root } from './render.js';
import type { Env } from './render.js';

const services = readdirSync(join(root, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

interface Dockerfile {
  stages: string[];
  env: Env;
  expose: number[];
  user: string | undefined;
  cmd: string[];
  run: string;
}

/** The parts of a Dockerfile these checks need: base images, the last stage's ENV, EXPOSE, USER and CMD. */
function readDockerfile(path: string): Dockerfile {
  const lines = readFileSync(path, 'utf8').replace(/\\\n/g, ' ').split('\n');
  const result: Dockerfile = { stages: [], env: {}, expose: [], user: undefined, cmd: [], run: '' };
  for (const line of lines.map((l) => l.trim())) {
    const [instruction = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (instruction === 'FROM') {
      result.stages.push(rest[0] ?? '');
      result.env = {};
      result.expose = [];
    } else if (instruction === 'ENV') {
      for (const pair of rest) {
        const at = pair.indexOf('=');
        result.env[pair.slice(0, at)] = pair.slice(at + 1);
      }
    } else if (instruction === 'EXPOSE') result.expose.push(...rest.map(Number));
    else if (instruction === 'USER') result.user = args;
    else if (instruction === 'CMD') result.cmd = JSON.parse(args) as string[];
    else if (instruction === 'RUN') result.run += `${args}\n`;
  }
  return result;
}

const dockerfile = (name: string): string => join(root, 'deploy', 'docker', `${name}.Dockerfile`);

t.test(
  'every service has a multi-stage, non-root node:20-slim image that starts what `start:dist` starts',
  async (t) => {
    for (const name of services) {
      t.ok(existsSync(dockerfile(name)), `${name}: deploy/docker/${name}.Dockerfile exists`);
      if (!existsSync(dockerfile(name))) continue;
      const image = readDockerfile(dockerfile(name));
      t.same(image.stages, ['node:20-slim', 'node:20-slim'], `${name}: build and runtime stages on node:20-slim`);
      t.equal(image.user, 'node', `${name}: runs as the unprivileged node user`);
      t.match(image.run, new RegExp(`tsc -b services/${name}\\b`), `${name}: compiles its own project`);
      const scripts = (
        JSON.parse(readFileSync(join(root, 'services', name, 'package.json'), 'utf8')) as {
          scripts: Record<string, string>;
        }
      ).scripts;
      const entry = scripts['start:dist']?.replace(/^node /, '');
      t.same(image.cmd, ['node', `services/${name}/${entry}`], `${name}: CMD runs the start:dist entry point`);
      const ports = ['PORT', 'TUNNEL_PORT', 'METRICS_PORT'].flatMap((v) =>
        image.env[v] ? [Number(image.env[v])] : [],
      );
      t.same(image.expose.sort(), ports.sort(), `${name}: EXPOSE lists exactly the ports it listens on`);
    }
  },
);

t.test("the API server's image carries the built web console it serves under /console/", async (t) => {
  const image = readDockerfile(dockerfile('api-server'));
  const run = image.run.split('&&').map((step) => step.trim());
  const build = run.indexOf('npm run build -w packages/web-console');
  t.ok(build >= 0, 'the build stage builds the console (without it /console/ answers 503)');
  t.ok(build < run.findIndex((step) => step.startsWith('npm prune')), 'before the prune removes vite');
});

/** `${VAR}`, `${VAR:-default}` and `${VAR:?message}`, as docker compose interpolates them. */
function interpolate(text: string, env: Env): string {
  return text.replace(
    /\$\{([A-Z_][A-Z0-9_]*)(?:(:-|:\?)([^}]*))?\}/g,
    (_match, name: string, op: string | undefined, arg: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      if (op === ':?') throw new Error(`compose refuses to start without ${name}: ${arg ?? ''}`);
      return op === ':-' ? (arg ?? '') : '';
    },
  );
}

interface ComposeService {
  build?: { context: string; dockerfile: string };
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, unknown>;
  profiles?: string[];
}

/** Compose interpolates after parsing, in every string value. */
function interpolateAll(value: unknown, env: Env): unknown {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolateAll(item, env));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateAll(v, env)]));
  return value;
}

const composeDoc = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as unknown;
const operatorEnv: Env = {
  AUTH_JWT_SECRET: 'compose-jwt-secret-0123456789abcdef0123456789',
  CP_ADMIN_PASSWORD: 'compose-secret',
  CLUSTER_ID: 'c-compose',
  AGENT_TOKEN: 'agent-token-compose',
};

t.test('docker compose needs the documented secrets and nothing else', async (t) => {
  t.throws(() => interpolateAll(composeDoc, { ...operatorEnv, AUTH_JWT_SECRET: undefined }), /AUTH_JWT_SECRET/);
  t.throws(() => interpolateAll(composeDoc, { ...operatorEnv, CP_ADMIN_PASSWORD: undefined }), /CP_ADMIN_PASSWORD/);
  t.doesNotThrow(
    () => interpolateAll(composeDoc, { AUTH_JWT_SECRET: 'x', CP_ADMIN_PASSWORD: 'y' }),
    "the agent profile's variables are not needed to start the rest",
  );
});

t.test(
  'docker compose runs every service from its image, configured as the service accepts and wired to names that exist',
  async (t) => {
    const compose = interpolateAll(composeDoc, operatorEnv) as { services: Record<string, ComposeService> };
    const readElsewhere = new Set(FLAGS.map((flag) => flag.envVar));
    const containerPorts = (name: string): number[] => {
      const service = compose.services[name];
      if (service?.build) {
        const image = readDockerfile(join(root, service.build.dockerfile));
        return image.expose;
      }
      return { postgres: [5432], redis: [6379] }[name] ?? [];
    };
    for (const name of services) {
      const service = compose.services[name];
      t.ok(service, `${name}: has a compose service`);
      if (!service) continue;
      t.equal(service.build?.dockerfile, `deploy/docker/${name}.Dockerfile`, `${name}: built from its Dockerfile`);
      const image = readDockerfile(dockerfile(name));
      const env: Env = { ...image.env, ...service.environment };
      // Bind mounts: the container path a variable names is the file in this checkout.
      for (const volume of service.volumes ?? []) {
        const [from = '', to = ''] = volume.split(':');
        if (!from.startsWith('./')) continue;
        t.ok(existsSync(join(root, from)), `${name}: mounts ${from}, which exists`);
        for (const [key, value] of Object.entries(env)) if (value === to) env[key] = join(root, from);
      }
      const { read } = load(name, env);
      const unread = Object.keys(service.environment ?? {}).filter((key) => !read.has(key) && !readElsewhere.has(key));
      t.same(unread, [], `${name}: every variable compose sets is one the service reads`);
      for (const dependency of Object.keys(service.depends_on ?? {}))
        t.ok(compose.services[dependency], `${name}: depends on ${dependency}, which exists`);
      for (const port of service.ports ?? []) {
        const inside = Number(port.split(':').at(-1));
        t.ok(containerPorts(name).includes(inside), `${name}: publishes ${port}, a port it listens on`);
      }
      for (const value of Object.values(service.environment ?? {})) {
        const url = /^[a-z]+:\/\/(?:[^@/]*@)?([a-z-]+):(\d+)/.exec(value);
        if (!url || url[1] === 'localhost') continue;
        t.ok(compose.services[url[1]!], `${name}: ${url[1]} is a compose service`);
        t.ok(containerPorts(url[1]!).includes(Number(url[2])), `${name}: ${url[1]} listens on ${url[2]}`);
      }
    }
  },
);
