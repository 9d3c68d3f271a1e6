import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import type { Test } from 'tap';
import { generateKey } from '../src/apikeys/keys.js';
import type { ApiKeyIdentity } from '../src/apikeys/store.js';
import {
  BASIC_ADMIN,
  build,
  createKey,
  createKeySecret,
  kubectl,
  postKey,
  relayedKubeconfig,
  startKube,
  startRelay,
  until,
} from './helper.js';
import type { Built } from './helper.js';

const kube = await startKube(t);

interface SecretJson {
  type: string;
  metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string> };
  data: Record<string, string>;
}

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');

/** The status of GET /api/v1/session with an API key. */
async function withKey(app: FastifyInstance, key: string): Promise<number> {
  return (await app.inject({ url: '/api/v1/session', headers: { 'x-api-key': key } })).statusCode;
}

async function revoke(app: FastifyInstance, name: string): Promise<number> {
  return (await app.inject({ method: 'DELETE', url: `/api/v1/apikeys/${name}`, headers: BASIC_ADMIN })).statusCode;
}

/** The revocations one replica reports for keys named `name`, as they come. */
function revocations(t: { teardown(fn: () => unknown): void }, app: FastifyInstance, name: string): ApiKeyIdentity[] {
  const seen: ApiKeyIdentity[] = [];
  t.teardown(
    app.apikeys.onRevoked((key) => {
      if (key.name === name) seen.push(key);
    }),
  );
  return seen;
}

/**
 * Creates a key at `from` and waits for `at` to authenticate it. A watch delivers events in
 * order, so every event about key Secrets that came before has then reached `at` too.
 */
async function barrier(from: FastifyInstance, at: FastifyInstance, name: string): Promise<void> {
  const key = await createKey(from, name, 'viewer');
  await until(`the barrier key ${name}`, async () => (await withKey(at, key)) === 200);
}

/** Two control planes on `kube`, and a viewer key `name` created at `a` that `b` has learnt (within 2 s). */
async function keyOnTwo(t: Test, name: string): Promise<{ a: Built; b: Built; key: string }> {
  const a = await build(t, kube);
  const b = await build(t, kube);
  const key = await createKey(a.app, name, 'viewer');
  const listed = async () =>
    (await b.app.inject({ url: '/api/v1/gameservers', headers: { 'x-api-key': key } })).statusCode;
  await until('instance b to learn the key', async () => (await listed()) === 200, 2000);
  return { a, b, key };
}

/** Waits at most 2 s for both control planes to refuse `key` (401). */
async function refusedByBoth(a: FastifyInstance, b: FastifyInstance, key: string): Promise<void> {
  const headers = { 'x-api-key': key };
  await until(
    'both instances to reject the key',
    async () => {
      const [ra, rb] = await Promise.all([
        a.inject({ url: '/api/v1/gameservers', headers }),
        b.inject({ url: '/api/v1/gameservers', headers }),
      ]);
      return ra.statusCode === 401 && rb.statusCode === 401;
    },
    2000,
  );
}

const getSecret = async (name: string): Promise<SecretJson> => {
  const run = await kubectl(kube, ['-n', 'default', 'get', 'secret', name, '-o', 'json']);
  if (run.code !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as SecretJson;
};

t.test('a created key is an Opaque Secret with the seed labels, key and metadata, seen by kubectl', async (t) => {
  const { app } = await build(t, kube);
  const res = await postKey(app, { name: 'ci-deploy', role: 'operator' });
  t.equal(res.statusCode, 201);
  const body = res.json() as { name: string; role: string; createdAt: string; key: string; warning: string };
  t.match(body, { name: 'ci-deploy', role: 'operator', key: /^gsp_[0-9A-Za-z]{38}$/, warning: /only once/ });

  const secret = await getSecret('gsp-apikey-ci-deploy');
  t.equal(secret.type, 'Opaque');
  t.same(secret.metadata.labels, { 'gsp.dev/apikey': 'true', 'gsp.dev/created-by': 'root' });
  t.equal(Buffer.from(secret.data.key as string, 'base64').toString(), body.key);
  const meta = JSON.parse(Buffer.from(secret.data.metadata as string, 'base64').toString()) as Record<string, unknown>;
  t.same(meta, { name: 'ci-deploy', role: 'operator', userId: 'root', username: 'root', createdAt: body.createdAt });

  const asKey = { 'x-api-key': body.key };
  t.equal(
    (await app.inject({ url: '/api/v1/gameservers', headers: asKey })).statusCode,
    200,
    'the key reads as an operator',
  );
  t.equal((await app.inject({ url: '/api/v1/apikeys', headers: asKey })).statusCode, 403, 'but does not manage keys');
});

t.test('the list shows the seed fields and never the key', async (t) => {
  const { app } = await build(t, kube);
  const key = await createKey(app, 'listed', 'viewer');
  const res = await app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN });
  t.equal(res.statusCode, 200);
  const item = (res.json() as Record<string, unknown>[]).find((i) => i.name === 'listed');
  t.match(item, { name: 'listed', userId: 'root', username: 'root', role: 'viewer', createdAt: String });
  t.notOk(res.body.includes(key));
  t.notOk(res.body.includes('"key"'));
});

/** The names GET /api/v1/apikeys lists, in its order. */
async function listedNames(app: FastifyInstance): Promise<string[]> {
  const res = await app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN });
  if (res.statusCode !== 200) throw new Error(`listing keys: ${res.statusCode} ${res.body}`);
  const body = res.json() as unknown;
  if (!Array.isArray(body)) throw new Error(`the list is not a JSON array: ${res.body}`);
  return (body as { name: string }[]).map((i) => i.name);
}

t.test('the list is a JSON array of keys sorted by name', async (t) => {
  const { app } = await build(t, kube);
  await createKey(app, 'sorted-c', 'viewer');
  await createKey(app, 'sorted-a', 'viewer');
  await createKey(app, 'sorted-b', 'viewer');
  const names = await listedNames(app);
  t.same(
    names.filter((n) => n.startsWith('sorted-')),
    ['sorted-a', 'sorted-b', 'sorted-c'],
  );
  t.same(
    names,
    [...names].sort((a, b) => a.localeCompare(b)),
    'every key in name order',
  );
});

t.test(
  'a key shows in the list of the replica that created it as soon as the 201 is back, ' +
    'and leaves it as soon as the 204 is',
  async (t) => {
    const { app } = await build(t, kube);
    for (let i = 0; i < 5; i++) {
      const name = `at-once-${i}`;
      await createKey(app, name, 'viewer');
      t.ok((await listedNames(app)).includes(name), `${name} listed right after its create`);
      t.equal(await revoke(app, name), 204);
      t.notOk((await listedNames(app)).includes(name), `${name} gone right after its revocation`);
    }
  },
);

t.test('a key Secret whose data cannot be read is not listed', async (t) => {
  const a = await build(t, kube);
  const b = await build(t, kube);
  const created = await kubectl(kube, [
    '-n',
    'default',
    'create',
    'secret',
    'generic',
    'gsp-apikey-garbled',
    '--from-literal=key=gsp_x',
    '--from-literal=metadata=not json',
  ]);
  t.equal(created.code, 0, created.stderr);
  const labelled = await kubectl(kube, [
    '-n',
    'default',
    'label',
    'secret',
    'gsp-apikey-garbled',
    'gsp.dev/apikey=true',
  ]);
  t.equal(labelled.code, 0, labelled.stderr);
  await barrier(b.app, a.app, 'garbled-barrier');
  const names = await listedNames(a.app);
  t.ok(names.includes('garbled-barrier'), 'the keys around it are listed');
  t.notOk(names.includes('garbled') || names.includes('gsp-apikey-garbled'), 'it is not');
});

t.test(
  'the list answers from memory while the cluster is unreachable, ' +
    'and 503 with Retry-After before the keys were ever loaded',
  async (t) => {
    const relay = await startRelay(t, { host: new URL(kube.url).hostname, port: Number(new URL(kube.url).port) });
    relay.cut();
    const env = { KUBECONFIG: relayedKubeconfig(t, kube, relay), KUBE_REQUEST_TIMEOUT: '1s', KUBE_WATCH_TIMEOUT: '2s' };
    const { app } = await build(t, kube, env);
    const early = await app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN });
    t.equal(early.statusCode, 503, 'not an empty list');
    t.equal(early.headers['content-type'], 'application/problem+json; charset=utf-8');
    t.ok(Number(early.headers['retry-after']) > 0, 'with Retry-After');
    t.match(early.json(), { status: 503, detail: /not been loaded/ });

    relay.heal();
    await until(
      'the keys to be loaded',
      async () => (await app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN })).statusCode === 200,
      10_000,
    );
    await createKey(app, 'from-memory', 'viewer');
    relay.cut();
    t.ok((await listedNames(app)).includes('from-memory'), 'listed with the cluster cut off');
  },
);

t.test('a duplicate name is a 409, a too long or malformed name a 400, a higher role a 403', async (t) => {
  const { app } = await build(t, kube);
  await createKey(app, 'dup', 'viewer');
  t.equal((await postKey(app, { name: 'dup' })).statusCode, 409);
  t.equal((await postKey(app, { name: 'x'.repeat(53) })).statusCode, 400);
  t.equal((await postKey(app, { name: 'Bad_Name' })).statusCode, 400);
  t.equal((await postKey(app, { name: 'x'.repeat(52) })).statusCode, 201, '52 characters fit');
  const operator = await createKey(app, 'op-creator', 'operator');
  const res = await postKey(app, { name: 'escalate', role: 'admin' }, { 'x-api-key': operator });
  t.equal(res.statusCode, 403);
});

t.test('a key created with expiresIn carries expiresAt and stops working once expired', async (t) => {
  const { app } = await build(t, kube);
  const res = await postKey(app, { name: 'short', role: 'viewer', expiresIn: '1s' });
  t.equal(res.statusCode, 201);
  const { key, expiresAt } = res.json() as { key: string; expiresAt: string };
  t.ok(Date.parse(expiresAt) > Date.now());
  await until(
    'the key to expire',
    async () => (await app.inject({ url: '/api/v1/gameservers', headers: { 'x-api-key': key } })).statusCode === 401,
    3000,
  );
  t.pass('expired keys are rejected');
});

t.test('an expiresIn no date can hold, or of zero, is a 400 naming the field and the allowed range', async (t) => {
  const { app } = await build(t, kube);
  for (const expiresIn of ['100000000d', '99999999999999999999d', '36501d', '0s']) {
    const res = await postKey(app, { name: 'forever', expiresIn });
    t.equal(res.statusCode, 400, `expiresIn ${expiresIn}`);
    t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    t.equal(
      (res.json() as { detail: string }).detail,
      `expiresIn must be a duration from 1s to 36500d, such as 30d; got "${expiresIn}"`,
    );
  }
  const longest = await postKey(app, { name: 'century', expiresIn: '36500d' });
  t.equal(longest.statusCode, 201, 'a hundred years is allowed');
  t.ok(Date.parse((longest.json() as { expiresAt: string }).expiresAt) > Date.now() + 99 * 365 * 86_400_000);

  const capped = await build(t, kube, { APIKEY_MAX_TTL: '7d' });
  const res = await postKey(capped.app, { name: 'too-long', expiresIn: '8d' });
  t.equal(res.statusCode, 400);
  t.match(res.json(), { detail: /^expiresIn must be a duration from 1s to 604800s \(APIKEY_MAX_TTL\)/ });
});

t.test('APIKEY_MAX_TTL caps expiresIn', async (t) => {
  const { app } = await build(t, kube, { APIKEY_MAX_TTL: '7d' });
  t.equal((await postKey(app, { name: 'long', expiresIn: '30d' })).statusCode, 400);
  const res = await postKey(app, { name: 'capped' });
  t.ok((res.json() as { expiresAt?: string }).expiresAt, 'a key without expiresIn gets the maximum');
});

t.test('a deleted key is rejected by two control-plane instances within 2 s', async (t) => {
  const { a, b, key } = await keyOnTwo(t, 'revoked');
  t.equal(
    (await a.app.inject({ method: 'DELETE', url: '/api/v1/apikeys/revoked', headers: BASIC_ADMIN })).statusCode,
    204,
  );
  const started = Date.now();
  await refusedByBoth(a.app, b.app, key);
  t.ok(Date.now() - started < 2000);
  t.equal(
    (await a.app.inject({ method: 'DELETE', url: '/api/v1/apikeys/revoked', headers: BASIC_ADMIN })).statusCode,
    404,
    'deleting again is a 404',
  );
});

t.test('a Secret deleted with kubectl stops the key on two instances within 2 s', async (t) => {
  const { a, b, key } = await keyOnTwo(t, 'kubectl-deleted');
  const run = await kubectl(kube, ['-n', 'default', 'delete', 'secret', 'gsp-apikey-kubectl-deleted']);
  t.equal(run.code, 0, run.stderr);
  await refusedByBoth(a.app, b.app, key);
  t.pass('rejected on both');
});

t.test('using a key records lastUsedAt on the Secret, visible in the list', async (t) => {
  const { app } = await build(t, kube);
  const key = await createKey(app, 'used', 'viewer');
  await app.inject({ url: '/api/v1/gameservers', headers: { 'x-api-key': key } });
  const item = await until('lastUsedAt in the list', async () => {
    const res = await app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN });
    return (res.json() as { name: string; lastUsedAt?: string }[]).find((i) => i.name === 'used' && i.lastUsedAt);
  });
  t.ok(Date.parse(item.lastUsedAt as string) <= Date.now());
});

t.test('the create response warns that the API never shows the key again, and promises no more', async (t) => {
  const { app } = await build(t, kube);
  const payload = { name: 'warned' };
  const res = await postKey(app, payload);
  const { warning } = res.json() as { warning: string };
  t.equal(warning, 'Store this key now: it is shown only once, in this response; the API never shows it again.');
  t.notMatch(warning, /cannot be retrieved/, 'whoever may read Secrets in the namespace can read it');
});

t.test('a key Secret carries the SHA-256 of the key as an annotation, kept when its use is stamped', async (t) => {
  const { app } = await build(t, kube);
  const key = await createKey(app, 'hashed', 'viewer');
  const secret = await getSecret('gsp-apikey-hashed');
  t.equal(secret.metadata.annotations?.['gsp.dev/apikey-sha256'], sha256(key), 'hex SHA-256 of the returned key');
  const labels = { 'gsp.dev/apikey': 'true', 'gsp.dev/created-by': 'root' };
  t.same(secret.metadata.labels, labels, 'the labels are unchanged');

  // How tooling finds the Secret of a leaked key, without decoding any value.
  const path = String.raw`{range .items[*]}{.metadata.annotations.gsp\.dev/apikey-sha256} {.metadata.name}{"\n"}{end}`;
  const run = await kubectl(kube, ['get', 'secrets', '-l', 'gsp.dev/apikey=true', '-o', `jsonpath=${path}`]);
  t.equal(run.code, 0, run.stderr);
  t.ok(run.stdout.split('\n').includes(`${sha256(key)} gsp-apikey-hashed`), 'kubectl lists it by hash');

  await withKey(app, key);
  const stamped = await until('lastUsedAt on the Secret', async () => {
    const s = await getSecret('gsp-apikey-hashed');
    return s.metadata.annotations?.['gsp.dev/last-used-at'] ? s : undefined;
  });
  t.equal(stamped.metadata.annotations?.['gsp.dev/apikey-sha256'], sha256(key));
});

t.test('revoking a key through the API tells subscribers on every replica which key, within 2 s', async (t) => {
  const a = await build(t, kube);
  const b = await build(t, kube);
  const [atA, atB] = [revocations(t, a.app, 'watched'), revocations(t, b.app, 'watched')];
  const key = await createKey(a.app, 'watched', 'viewer');
  await until('instance b to learn the key', async () => (await withKey(b.app, key)) === 200);
  t.same([atA, atB], [[], []], 'nothing is revoked by creating and using a key');

  t.equal(await revoke(a.app, 'watched'), 204);
  await until('both replicas to report it', () => atA.length > 0 && atB.length > 0, 2000);
  await barrier(b.app, a.app, 'watched-barrier');
  const revoked = { name: 'watched', sha256: sha256(key) };
  t.same(atA, [revoked], 'once, at the replica that revoked it, although its watch reports the deletion too');
  t.same(atB, [revoked], 'once, at the other replica');
});

t.test('a key Secret deleted with kubectl is reported by every replica within 2 s', async (t) => {
  const a = await build(t, kube);
  const b = await build(t, kube);
  const [atA, atB] = [revocations(t, a.app, 'kubectl-revoked'), revocations(t, b.app, 'kubectl-revoked')];
  const key = await createKey(a.app, 'kubectl-revoked', 'viewer');
  await until('instance b to learn the key', async () => (await withKey(b.app, key)) === 200);
  const run = await kubectl(kube, ['-n', 'default', 'delete', 'secret', 'gsp-apikey-kubectl-revoked']);
  t.equal(run.code, 0, run.stderr);
  await until('both replicas to report it', () => atA.length > 0 && atB.length > 0, 2000);
  const revoked = { name: 'kubectl-revoked', sha256: sha256(key) };
  t.same([atA, atB], [[revoked], [revoked]]);
});

t.test('a key Secret given a new value reports the old key revoked; a stamped use reports nothing', async (t) => {
  const { app } = await build(t, kube);
  const seen = revocations(t, app, 'replaced');
  const key = await createKey(app, 'replaced', 'viewer');
  t.equal(await withKey(app, key), 200);
  await until('the stamped use to come back through the watch', async () => {
    const items = (await app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN })).json() as {
      name: string;
      lastUsedAt?: string;
    }[];
    return items.some((i) => i.name === 'replaced' && i.lastUsedAt);
  });
  t.same(seen, [], 'an update that keeps the value is no revocation');

  const value = generateKey('gsp');
  const patch = JSON.stringify({ data: { key: Buffer.from(value).toString('base64') } });
  const run = await kubectl(kube, ['patch', 'secret', 'gsp-apikey-replaced', '--type=merge', '-p', patch]);
  t.equal(run.code, 0, run.stderr);
  await until('the replacement to be reported', () => seen.length > 0, 2000);
  t.same(seen, [{ name: 'replaced', sha256: sha256(key) }]);
  t.equal(await withKey(app, key), 401, 'the old value is refused');
  t.equal(await withKey(app, value), 200, 'the new one works');
});

t.test('a key revoked and created again under its name reports the old key only; the new one works', async (t) => {
  const a = await build(t, kube);
  const b = await build(t, kube);
  const seen = revocations(t, a.app, 'again');
  const old = await createKey(a.app, 'again', 'viewer');
  t.equal(await revoke(a.app, 'again'), 204);
  const renewed = await createKey(a.app, 'again', 'viewer');
  // Once a key created at b works at a, the watch has brought a the old Secret's deletion too.
  await barrier(b.app, a.app, 'again-barrier');
  t.same(seen, [{ name: 'again', sha256: sha256(old) }]);
  t.equal(await withKey(a.app, renewed), 200);
});

t.test('a created key is no longer marked pending once its value has been sent', async (t) => {
  const { app } = await build(t, kube);
  await createKey(app, 'confirmed', 'viewer');
  const secret = await until('the pending mark to be removed', async () => {
    const s = await getSecret('gsp-apikey-confirmed');
    return s.metadata.annotations?.['gsp.dev/apikey-pending'] === undefined ? s : undefined;
  });
  t.ok(secret.metadata.annotations?.['gsp.dev/apikey-sha256'], 'the other annotations stay');
});

t.test(
  'a key Secret still marked pending, as a create whose answer was lost leaves it, authenticates nowhere',
  async (t) => {
    const a = await build(t, kube);
    const b = await build(t, kube);
    const value = generateKey('gsp');
    await createKeySecret(kube, 'unseen', value, { pending: true, role: 'admin' });
    await barrier(b.app, a.app, 'unseen-barrier-a');
    await barrier(a.app, b.app, 'unseen-barrier-b');
    t.same([await withKey(a.app, value), await withKey(b.app, value)], [401, 401], 'refused by both replicas');
    const listed = (await a.app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN })).json() as { name: string }[];
    t.notOk(
      listed.some((i) => i.name === 'unseen'),
      'and not listed',
    );

    const confirmed = await kubectl(kube, [
      '-n',
      'default',
      'annotate',
      'secret',
      'gsp-apikey-unseen',
      'gsp.dev/apikey-pending-',
    ]);
    t.equal(confirmed.code, 0, confirmed.stderr);
    await until(
      'both replicas to accept it once the mark is gone',
      async () => (await withKey(a.app, value)) === 200 && (await withKey(b.app, value)) === 200,
    );
    t.pass('the mark is what keeps it out');
  },
);
