import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { FLAGS } from '@gsp/flags-client';
import { dockerfilePath, readDockerfile } from './dockerfile.js';
import { load, root } from './render.js';
import type { Env } from './render.js';

const services = readdirSync(join(root, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const images = readdirSync(join(root, 'deploy', 'docker'))
  .filter((file) => file.endsWith('.Dockerfile'))
  .map((file) => file.slice(0, -'.Dockerfile'.length));

t.test(
  'every service has a multi-stage, non-root node:20-slim image that starts what `start:dist` starts',
  async (t) => {
    for (const name of services) {
      t.ok(existsSync(dockerfilePath(name)), `${name}: deploy/docker/${name}.Dockerfile exists`);
      if (!existsSync(dockerfilePath(name))) continue;
      const image = readDockerfile(dockerfilePath(name));
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

t.test("every image's header comment names only ports the image exposes", async (t) => {
  for (const name of images) {
    const image = readDockerfile(dockerfilePath(name));
    const named = [...image.header.matchAll(/\b\d{4,5}\b/g)].map((m) => Number(m[0]));
    t.same(
      named.filter((port) => !image.expose.includes(port)),
      [],
      `${name}: the header's ports (${named.join(', ') || 'none'}) are among EXPOSE ${image.expose.join(' ')}`,
    );
  }
});

interface Workspace {
  /** `packages/x` or `services/x`. */
  dir: string;
  pkg: { name: string; dependencies?: Record<string, string>; exports?: Record<string, unknown> };
}

const workspaces = new Map<string, Workspace>(
  ['packages', 'services'].flatMap((top) =>
    readdirSync(join(root, top), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, top, entry.name, 'package.json')))
      .map((entry): [string, Workspace] => {
        const dir = `${top}/${entry.name}`;
        const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Workspace['pkg'];
        return [pkg.name, { dir, pkg }];
      }),
  ),
);

/** A page's workspace exports no module (only its package.json, to find its dist/): it is built, not compiled. */
const isPage = (workspace: Workspace): boolean => !Object.hasOwn(workspace.pkg.exports ?? {}, '.');

/** The workspaces a workspace needs at run time: its `dependencies`, and theirs. */
function runtimeWorkspaces(name: string, found = new Set<Workspace>()): Set<Workspace> {
  for (const dependency of Object.keys(workspaces.get(name)?.pkg.dependencies ?? {})) {
    const workspace = workspaces.get(dependency);
    if (workspace === undefined || found.has(workspace)) continue;
    found.add(workspace);
    runtimeWorkspaces(dependency, found);
  }
  return found;
}

/** The projects `tsc -b <dirs>` builds: those named, and every project their tsconfig references. */
function compiledBy(dirs: string[], found = new Set<string>()): Set<string> {
  for (const dir of dirs) {
    if (found.has(dir)) continue;
    found.add(dir);
    const config = JSON.parse(readFileSync(join(root, dir, 'tsconfig.json'), 'utf8')) as {
      references?: { path: string }[];
    };
    compiledBy(
      (config.references ?? []).map((ref) => relative(root, join(root, dir, ref.path))),
      found,
    );
  }
  return found;
}

/** Every `.ts` file under a folder. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));

/**
 * The pages a service serves, found where its code looks for them: the `dist/` beside a workspace's
 * package.json (`join(dirname(require.resolve('@gsp/x/package.json')), 'dist')`).
 */
function servedPages(service: string): Workspace[] {
  const pages = new Set<Workspace>();
  for (const file of sources(join(root, 'services', service, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/resolve\('(@gsp\/[a-z-]+)\/package\.json'\)\),\s*'dist'\)/g)) {
      const workspace = workspaces.get(match[1]!);
      if (workspace) pages.add(workspace);
    }
  }
  return [...pages];
}

t.test("each service's image builds the page that service serves, before the prune removes Vite", async (t) => {
  const served = Object.fromEntries(services.map((name) => [name, servedPages(name).map((page) => page.dir)]));
  t.same(
    served,
    {
      'api-server': ['packages/web-console'],
      'control-plane': ['packages/gameserver-panel'],
      'cluster-proxy': [],
      'tunnel-agent': [],
    },
    "the pages found in the services' code: the web console (/console/) and the game-server panel (/panel/)",
  );
  for (const name of services) {
    const image = readDockerfile(dockerfilePath(name));
    const prune = image.steps.findIndex((step) => step.startsWith('npm prune'));
    for (const page of servedPages(name)) {
      const build = image.steps.indexOf(`npm run build -w ${page.dir}`);
      t.ok(build >= 0, `${name}: the build stage runs npm run build -w ${page.dir} (without it the page answers 503)`);
      t.ok(build < prune, `${name}: before the prune removes Vite`);
      t.ok(
        image.copies.some((copy) => copy.source === `/app/${page.dir.split('/')[0]}`),
        `${name}: the runtime stage copies ${page.dir.split('/')[0]}/, with ${page.dir}/dist`,
      );
    }
  }
});

t.test('each image compiles every workspace its service loads at run time', async (t) => {
  for (const name of images) {
    const image = readDockerfile(dockerfilePath(name));
    const targets = image.steps.flatMap((step) => /^npx tsc -b (.+)$/.exec(step)?.[1]?.split(/\s+/) ?? []);
    const compiled = compiledBy(targets);
    const own = [...workspaces.values()].find((w) => w.dir === targets[0]);
    t.ok(own, `${name}: compiles a workspace (${targets.join(', ')})`);
    if (!own) continue;
    for (const workspace of runtimeWorkspaces(own.pkg.name)) {
      if (isPage(workspace)) continue;
      t.ok(
        compiled.has(workspace.dir),
        `${name}: ${workspace.pkg.name} (${workspace.dir}/dist) is compiled by tsc -b ${targets.join(' ')}, ` +
          "through the project's tsconfig references",
      );
    }
  }
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
      const image = readDockerfile(dockerfilePath(name));
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
