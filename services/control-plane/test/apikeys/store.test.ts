/** `ApiKeyStore.byHash`: what a console, a ticket, a panel session and the live feed ask of a key they hold by hash. */
import t from 'tap';
import { generateKey, hashKey } from '../../src/apikeys/keys.js';
import { ApiKeyStore } from '../../src/apikeys/store.js';
import { BASIC_ADMIN, build, createKey, postKey, startKube } from '../helper.js';

const kube = await startKube(t);
const { app } = await build(t, kube);

t.test('a current key is found by the hash of its value, and only by it', async (t) => {
  const key = await createKey(app, 'finder', 'viewer');
  t.match(app.apikeys.byHash(hashKey(key)), { name: 'finder', role: 'viewer', sha256: hashKey(key) });
  t.equal(app.apikeys.byHash(hashKey(`${key}x`)), undefined, 'another value finds nothing');
});

t.test('a key whose expiresAt has passed is not found, though its Secret is still indexed', async (t) => {
  const res = await postKey(app, { name: 'brief', expiresIn: '1h' });
  t.equal(res.statusCode, 201, res.body);
  const { key, expiresAt } = res.json() as { key: string; expiresAt: string };
  t.ok(app.apikeys.byHash(hashKey(key), Date.parse(expiresAt) - 1), 'found until then');
  t.equal(app.apikeys.byHash(hashKey(key), Date.parse(expiresAt)), undefined, 'not from then on');
  t.ok(app.apikeys.lookup(key), 'its Secret is still there');
});

t.test('a revoked key is not found', async (t) => {
  const key = await createKey(app, 'gone');
  const res = await app.inject({ method: 'DELETE', url: '/api/v1/apikeys/gone', headers: BASIC_ADMIN });
  t.equal(res.statusCode, 204, res.body);
  t.equal(app.apikeys.byHash(hashKey(key)), undefined);
});

t.test('before the first list of the key Secrets no key is said to be current', async (t) => {
  const { kube: clients } = app;
  const store = new ApiKeyStore(clients.core, clients.watch, clients.namespace, 'early', app.log);
  t.teardown(() => store.stop());
  const key = generateKey('early');
  const meta = { name: 'first', role: 'viewer', userId: 'root', username: 'root', createdAt: new Date().toISOString() };
  // Shown to its creator on this replica: indexed at once, though the store has listed nothing yet.
  store.confirm(await store.create(key, meta, 'root'));
  t.ok(store.lookup(key), 'indexed');
  t.equal(store.byHash(hashKey(key)), undefined);
});
