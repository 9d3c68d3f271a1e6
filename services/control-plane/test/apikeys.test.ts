import t from 'tap';
import { BASIC_ADMIN, build, createKey, kubectl, startKube, until } from './helper.js';

const kube = await startKube(t);

interface SecretJson {
  type: string;
  metadata: { name: string; labels: Record<string, string> };
  data: Record<string, string>;
}

const getSecret = async (name: string): Promise<SecretJson> => {
  const run = await kubectl(kube, ['-n', 'default', 'get', 'secret', name, '-o', 'json']);
  if (run.code !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as SecretJson;
};

t.test('a created key is an Opaque Secret with the seed labels, key and metadata, seen by kubectl', async (t) => {
  const { app } = await build(t, kube);
  const res = await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name: 'ci-deploy', role: 'operator' } });
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
  t.equal((await app.inject({ url: '/api/v1/gameservers', headers: asKey })).statusCode, 200, 'the key reads as an operator');
  t.equal((await app.inject({ url: '/api/v1/apikeys', headers: asKey })).statusCode, 403, 'but does not manage keys');
});

t.test('the list shows the seed fields and never the key', async (t) => {
  const { app } = await build(t, kube);
  const key = await createKey(app, 'listed', 'viewer');
  const res = await app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN });
  t.equal(res.statusCode, 200);
  const item = (res.json() as { items: Record<string, unknown>[] }).items.find((i) => i.name === 'listed');
  t.match(item, { name: 'listed', userId: 'root', username: 'root', role: 'viewer', createdAt: String });
  t.notOk(res.body.includes(key));
  t.notOk(res.body.includes('"key"'));
});

t.test('a duplicate name is a 409, a too long or malformed name a 400, a higher role a 403', async (t) => {
  const { app } = await build(t, kube);
  await createKey(app, 'dup', 'viewer');
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name: 'dup' } })).statusCode, 409);
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name: 'x'.repeat(53) } })).statusCode, 400);
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name: 'Bad_Name' } })).statusCode, 400);
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name: 'x'.repeat(52) } })).statusCode, 201, '52 characters fit');
  const operator = await createKey(app, 'op-creator', 'operator');
  const res = await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: { 'x-api-key': operator }, payload: { name: 'escalate', role: 'admin' } });
  t.equal(res.statusCode, 403);
});

t.test('a key created with expiresIn carries expiresAt and stops working once expired', async (t) => {
  const { app } = await build(t, kube);
  const res = await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name: 'short', role: 'viewer', expiresIn: '1s' } });
  t.equal(res.statusCode, 201);
  const { key, expiresAt } = res.json() as { key: string; expiresAt: string };
  t.ok(Date.parse(expiresAt) > Date.now());
  await until('the key to expire', async () => (await app.inject({ url: '/api/v1/gameservers', headers: { 'x-api-key': key } })).statusCode === 401, 3000);
  t.pass('expired keys are rejected');
});

t.test('APIKEY_MAX_TTL caps expiresIn', async (t) => {
  const { app } = await build(t, kube, { APIKEY_MAX_TTL: '7d' });
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name: 'long', expiresIn: '30d' } })).statusCode, 400);
  const res = await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name: 'capped' } });
  t.ok((res.json() as { expiresAt?: string }).expiresAt, 'a key without expiresIn gets the maximum');
});

t.test('a deleted key is rejected by two control-plane instances within 2 s', async (t) => {
  const a = await build(t, kube);
  const b = await build(t, kube);
  const key = await createKey(a.app, 'revoked', 'viewer');
  const headers = { 'x-api-key': key };
  await until('instance b to learn the key', async () => (await b.app.inject({ url: '/api/v1/gameservers', headers })).statusCode === 200, 2000);
  t.equal((await a.app.inject({ method: 'DELETE', url: '/api/v1/apikeys/revoked', headers: BASIC_ADMIN })).statusCode, 204);
  const started = Date.now();
  await until('both instances to reject the key', async () => {
    const [ra, rb] = await Promise.all([a.app.inject({ url: '/api/v1/gameservers', headers }), b.app.inject({ url: '/api/v1/gameservers', headers })]);
    return ra.statusCode === 401 && rb.statusCode === 401;
  }, 2000);
  t.ok(Date.now() - started < 2000);
  t.equal((await a.app.inject({ method: 'DELETE', url: '/api/v1/apikeys/revoked', headers: BASIC_ADMIN })).statusCode, 404, 'deleting again is a 404');
});

t.test('a Secret deleted with kubectl stops the key on two instances within 2 s', async (t) => {
  const a = await build(t, kube);
  const b = await build(t, kube);
  const key = await createKey(a.app, 'kubectl-deleted', 'viewer');
  const headers = { 'x-api-key': key };
  await until('instance b to learn the key', async () => (await b.app.inject({ url: '/api/v1/gameservers', headers })).statusCode === 200, 2000);
  const run = await kubectl(kube, ['-n', 'default', 'delete', 'secret', 'gsp-apikey-kubectl-deleted']);
  t.equal(run.code, 0, run.stderr);
  await until('both instances to reject the key', async () => {
    const [ra, rb] = await Promise.all([a.app.inject({ url: '/api/v1/gameservers', headers }), b.app.inject({ url: '/api/v1/gameservers', headers })]);
    return ra.statusCode === 401 && rb.statusCode === 401;
  }, 2000);
  t.pass('rejected on both');
});

t.test('using a key records lastUsedAt on the Secret, visible in the list', async (t) => {
  const { app } = await build(t, kube);
  const key = await createKey(app, 'used', 'viewer');
  await app.inject({ url: '/api/v1/gameservers', headers: { 'x-api-key': key } });
  const item = await until('lastUsedAt in the list', async () => {
    const res = await app.inject({ url: '/api/v1/apikeys', headers: BASIC_ADMIN });
    return (res.json() as { items: { name: string; lastUsedAt?: string }[] }).items.find((i) => i.name === 'used' && i.lastUsedAt);
  });
  t.ok(Date.parse(item.lastUsedAt as string) <= Date.now());
});
