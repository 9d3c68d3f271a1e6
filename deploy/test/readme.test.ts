/**
 * deploy/README.md is the production install: every `helm install`, `helm upgrade` and `helm template`
 * of our charts it shows must render as shown, carry the values it gives, and read only the Secrets
 * (and keys) the README tells the operator to create.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse, parseAllDocuments } from 'yaml';
import { deployments, helmIn, imageRef, podSpec, root, servicesVersion } from './render.js';
import { fencedBlocks, readme, shellLines } from './readme.js';
import type { Manifest } from './render.js';

/** What the README's shell lines expect to be set by earlier steps, as the test stands them in. */
const shellVars = new Map([['CLUSTER_ID', 'c-0123456789']]);

/** A shell line's words, as sh would split them: quotes removed, `$VAR` and `"$VAR"` expanded. */
function shellWords(line: string, vars: ReadonlyMap<string, string>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const expand = (name: string): string => {
    const value = vars.get(name);
    if (value === undefined) throw new Error(`the README's command uses $${name}, which the test does not know`);
    return value;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      if (end < 0) throw new Error(`unterminated " in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end).replace(/\$(\w+)/g, (_, name: string) => expand(name));
      i = end;
    } else if (c === '$') {
      const name = /^\w+/.exec(line.slice(i + 1))?.[0];
      if (name === undefined) throw new Error(`a bare $ in: ${line}`);
      word = (word ?? '') + expand(name);
      i += name.length;
    } else if ('|&;<>`'.includes(c)) {
      throw new Error(`the test runs helm commands alone, without ${c}: ${line}`);
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The helm commands of the README that install or render one of our charts, continuation lines joined. */
function helmCommands(markdown: string): { commands: string[][]; unreadable: string[] } {
  const commands: string[][] = [];
  const unreadable: string[] = [];
  const lines = fencedBlocks(markdown)
    .filter((block) => block.lang === 'sh')
    .flatMap((block) => shellLines(block.body))
    .filter((line) => /^helm (install|upgrade|template) /.test(line) && line.includes(' deploy/helm/'));
  for (const line of lines) {
    try {
      commands.push(shellWords(line, shellVars));
    } catch (err) {
      unreadable.push((err as Error).message);
    }
  }
  return { commands, unreadable };
}

/** The Secrets the README creates (`kubectl create secret`, cert-manager Certificates), with their keys. */
function createdSecrets(markdown: string): Map<string, Set<string>> {
  const secrets = new Map<string, Set<string>>();
  for (const block of fencedBlocks(markdown)) {
    if (block.lang === 'yaml') {
      for (const doc of parseAllDocuments(block.body)) {
        const object = doc.toJSON() as { kind?: string; spec?: { secretName?: string } } | null;
        if (object?.kind === 'Certificate' && object.spec?.secretName)
          secrets.set(object.spec.secretName, new Set(['tls.crt', 'tls.key', 'ca.crt']));
      }
      continue;
    }
    for (const line of shellLines(block.body)) {
      const create = /kubectl .*create secret (generic|tls) (\S+)(.*)$/.exec(line);
      if (!create) continue;
      const keys = new Set<string>(create[1] === 'tls' ? ['tls.crt', 'tls.key'] : []);
      for (const m of create[3]!.matchAll(/--from-(?:file|literal)=([^=\s]+)=/g)) keys.add(m[1]!);
      secrets.set(create[2]!, keys);
    }
  }
  return secrets;
}

/** The string values a command gives: its `--set` values and the leaves of its values files. */
function givenStrings(args: string[]): string[] {
  const strings: string[] = [];
  const leaves = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(leaves);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(leaves);
  };
  args.forEach((arg, i) => {
    if (args[i - 1] === '--set') strings.push(arg.slice(arg.indexOf('=') + 1));
    if (args[i - 1] === '-f' || args[i - 1] === '--values') leaves(parse(readFileSync(join(root, arg), 'utf8')));
  });
  return strings.filter((s) => s !== '' && s !== 'true' && s !== 'false' && !/^\d+$/.test(s));
}

/** Each Secret key a pod reads: by `secretKeyRef`, or as a file under a mounted Secret that a variable names. */
function secretKeysRead(deployment: Manifest): [string, string, string][] {
  const spec = podSpec(deployment);
  const read: [string, string, string][] = [];
  for (const container of spec.containers) {
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref) read.push([ref.name, ref.key, `${container.name} ${variable.name}`]);
    }
    for (const mount of container.volumeMounts ?? []) {
      const secret = spec.volumes?.find((v) => v.name === mount.name)?.secret;
      if (!secret) continue;
      for (const variable of container.env ?? []) {
        if (!variable.value?.startsWith(`${mount.mountPath}/`)) continue;
        const path = variable.value.slice(mount.mountPath.length + 1);
        const key = secret.items?.find((item) => item.path === path)?.key ?? path;
        read.push([secret.secretName, key, `${container.name} ${variable.name}`]);
      }
    }
  }
  return read;
}

const helm = helmIn();
t.teardown(() => helm.close());

const { commands, unreadable } = helmCommands(readme);
const chartOf = (command: string[]): string => command.find((w) => w.startsWith('deploy/helm/'))!.split('/')[2]!;

t.test('every helm command the README shows for our charts can be pasted into a shell as it is', async (t) => {
  t.same(unreadable, []);
});

t.test('the README installs each of our charts, in production order', async (t) => {
  t.same(
    [...new Set(commands.filter((c) => c[1] === 'install').map(chartOf))],
    ['platform', 'tunnel-agent', 'control-plane'],
  );
});

t.test('the production path signs people in with OIDC, not the development HS256 secret', async (t) => {
  t.notMatch(readme, /jwtSecret\.existingSecret=/, 'no command sets apiServer.auth.jwtSecret');
  t.match(readme, /openssl ecparam -name prime256v1 -genkey -noout \| openssl pkcs8 -topk8 -nocrypt/);
  for (const step of ['helm install agones', 'external-snapshotter/client/config/crd', 'snapshot-controller'])
    t.ok(readme.indexOf(step) < readme.indexOf('helm install gsp deploy/helm/platform'), `${step} comes first`);
});

for (const command of commands) {
  t.test(`renders as the README shows it: ${command.join(' ')}`, async (t) => {
    // `helm template` takes install's flags; --install is upgrade's alone.
    const args = ['template', ...command.slice(2).filter((w) => w !== '--install')];
    for (const [i, arg] of args.entries()) {
      if (args[i - 1] === '-f' || args[i - 1] === '--values')
        t.ok(existsSync(join(root, arg)), `the values file ${arg} is in the repository`);
    }
    const result = await helm.run(args);
    t.equal(result.code, 0, result.stderr);
    if (result.code !== 0) return;
    const docs = parseAllDocuments(result.stdout)
      .map((doc) => doc.toJSON() as Manifest | null)
      .filter((doc): doc is Manifest => doc !== null);

    for (const value of givenStrings(args))
      t.ok(result.stdout.includes(value), `the manifests carry the value given: ${value}`);

    const secrets = createdSecrets(readme);
    for (const deployment of deployments(docs)) {
      for (const [name, key, reader] of secretKeysRead(deployment))
        t.ok(secrets.get(name)?.has(key), `${reader} reads key ${key} of Secret ${name}, which the README creates`);
    }

    if (chartOf(command) === 'platform') {
      const api = podSpec(deployments(docs).find((d) => d.metadata.name.endsWith('-api-server'))!).containers[0]!;
      const env = new Map((api.env ?? []).map((v) => [v.name, v.value]));
      t.match(env.get('AUTH_OIDC_ISSUER_URL'), /^https:\/\//, 'the API server verifies OIDC tokens');
      t.ok(env.get('AUTH_OIDC_AUDIENCE'), 'for its own audience');
      t.notOk(env.has('AUTH_JWT_SECRET_FILE'), 'and takes no HS256 secret');
      t.ok(env.get('KUBECONFIG_SIGNING_KEY_FILE'), 'kubeconfig tokens are signed with the shared ES256 key');
    }
  });
}

t.test('the images the README builds are the images its installs pull', async (t) => {
  const built = new Map<string, string>();
  for (const block of fencedBlocks(readme).filter((b) => b.lang === 'sh')) {
    for (const line of block.body.split('\n')) {
      const build = /^docker build -f deploy\/docker\/([\w-]+)\.Dockerfile -t (\S+) \.$/.exec(line);
      if (build) built.set(build[2]!, build[1]!);
    }
  }
  t.same(
    [...built.values()].sort(),
    ['api-server', 'cluster-proxy', 'control-plane', 'tunnel-agent'],
    'one build per service',
  );
  for (const [tag, service] of built) t.equal(tag, imageRef(`gsp/${service}`), `${service}: tagged ${servicesVersion}`);
  const pulled = new Set<string>();
  for (const command of commands.filter((c) => c[1] === 'install')) {
    const result = await helm.run(['template', ...command.slice(2)]);
    t.equal(result.code, 0, result.stderr);
    for (const deployment of deployments(parseAllDocuments(result.stdout).map((d) => d.toJSON() as Manifest)))
      for (const container of podSpec(deployment).containers) pulled.add(container.image);
  }
  t.same([...pulled].sort(), [...built.keys()].sort(), 'every image an install pulls, and only those, is built');
});
