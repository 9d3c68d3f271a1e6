import t from 'tap';
import { ApiKeyService } from '../../src/apikeys/service.js';
import { isWellFormedKey } from '../../src/apikeys/keys.js';
import { AlreadyExistsError, ReplacedError } from '../../src/apikeys/store.js';
import type { ApiKeyMetadata, ApiKeyRecord, PendingKey, StoredKey } from '../../src/apikeys/store.js';
import type { Principal } from '../../src/auth/principal.js';
import { loadRoles } from '../../src/rbac/roles.js';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const DAY = 86_400_000;

/** A key store in memory: what the service asked of it, and answers set by the test. */
class FakeStore {
  readonly records: ApiKeyRecord[] = [];
  readonly created: { key: string; meta: ApiKeyMetadata; createdBy: string }[] = [];
  readonly stored = new Map<string, StoredKey>();
  readonly deleted: { name: string; uid: string }[] = [];
  createFails?: Error;
  deleteAnswer: boolean | Error = true;

  list(): ApiKeyRecord[] {
    return this.records;
  }
  async get(name: string): Promise<StoredKey | undefined> {
    return this.stored.get(name);
  }
  async create(key: string, meta: ApiKeyMetadata, createdBy: string): Promise<PendingKey> {
    if (this.createFails) throw this.createFails;
    this.created.push({ key, meta, createdBy });
    return { name: meta.name, uid: 'uid-1', secret: {} };
  }
  async delete(name: string, uid: string): Promise<boolean> {
    if (this.deleteAnswer instanceof Error) throw this.deleteAnswer;
    this.deleted.push({ name, uid });
    return this.deleteAnswer;
  }
}

const caller = (role: string | undefined, username = 'Ada Lovelace'): Principal => ({
  userId: 'ada',
  username,
  role,
  method: 'basic',
});

function service(maxTtlMs?: number) {
  const store = new FakeStore();
  return { store, keys: new ApiKeyService(store, { keyPrefix: 'gsp', roles: loadRoles(), maxTtlMs }) };
}

t.test('a key is created with the caller as its owner and, unless asked otherwise, its role', async (t) => {
  const { store, keys } = service();
  const { answer, pending } = await keys.create(caller('operator'), { name: 'ci' }, NOW);
  t.same(Object.keys(answer).sort(), ['createdAt', 'key', 'name', 'role']);
  t.match(answer, { name: 'ci', role: 'operator', createdAt: '2026-01-01T00:00:00.000Z' });
  t.ok(isWellFormedKey('gsp', answer.key), 'the key has our shape and checksum');
  t.equal(pending.name, 'ci');
  t.same(store.created[0]?.meta, {
    name: 'ci',
    role: 'operator',
    userId: 'ada',
    username: 'Ada Lovelace',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  t.equal(store.created[0]?.createdBy, 'Ada_Lovelace', 'the creator label is a valid label value');
});

t.test('a key may have a role the caller covers, never a higher or unknown one', async (t) => {
  const { keys } = service();
  t.match((await keys.create(caller('admin'), { name: 'low', role: 'viewer' }, NOW)).answer, { role: 'viewer' });
  await t.rejects(keys.create(caller('operator'), { name: 'high', role: 'admin' }), {
    statusCode: 403,
    message: 'role operator may not create a key with role admin',
  });
  await t.rejects(keys.create(caller('admin'), { name: 'odd', role: 'wizard' }), {
    statusCode: 400,
    message: 'unknown role "wizard"',
  });
});

t.test('a caller without a role creates and revokes nothing', async (t) => {
  const { keys } = service();
  const refused = { statusCode: 401, message: 'authentication is required' };
  await t.rejects(keys.create(caller(undefined), { name: 'ci' }), refused);
  await t.rejects(keys.create(null, { name: 'ci' }), refused);
  await t.rejects(keys.revoke(caller(undefined), 'ci'), refused);
});

t.test("a name is refused when the key's Secret name would not fit in 63 characters", async (t) => {
  const { keys } = service();
  t.equal(keys.maxName, 63 - 'gsp-apikey-'.length);
  await t.resolves(keys.create(caller('admin'), { name: 'a'.repeat(keys.maxName) }));
  await t.rejects(keys.create(caller('admin'), { name: 'a'.repeat(keys.maxName + 1) }), {
    statusCode: 400,
    message: 'name must be at most 52 characters, so that the Secret name gsp-apikey-<name> fits in 63',
  });
});

t.test('expiresIn sets the expiry, from 1s to a hundred years', async (t) => {
  const { keys } = service();
  const { answer } = await keys.create(caller('admin'), { name: 'month', expiresIn: '30d' }, NOW);
  t.equal(answer.expiresAt, new Date(NOW.getTime() + 30 * DAY).toISOString());
  for (const expiresIn of ['0s', '36501d'])
    await t.rejects(keys.create(caller('admin'), { name: 'bad', expiresIn }), {
      statusCode: 400,
      message: `expiresIn must be a duration from 1s to 36500d, such as 30d; got "${expiresIn}"`,
    });
});

t.test('APIKEY_MAX_TTL is the lifetime of a key created without expiresIn, and the longest allowed', async (t) => {
  const { keys } = service(7 * DAY);
  const { answer } = await keys.create(caller('admin'), { name: 'default' }, NOW);
  t.equal(answer.expiresAt, new Date(NOW.getTime() + 7 * DAY).toISOString());
  await t.rejects(keys.create(caller('admin'), { name: 'long', expiresIn: '8d' }), {
    statusCode: 400,
    message: 'expiresIn must be a duration from 1s to 604800s (APIKEY_MAX_TTL), such as 30d; got "8d"',
  });
});

t.test('a name already taken is a conflict', async (t) => {
  const { store, keys } = service();
  store.createFails = new AlreadyExistsError('API key ci already exists');
  await t.rejects(keys.create(caller('admin'), { name: 'ci' }), {
    statusCode: 409,
    message: 'API key ci already exists',
  });
});

t.test('the list shows each key without its value', async (t) => {
  const { store, keys } = service();
  store.records.push(
    { name: 'a', role: 'viewer', userId: 'u', username: 'u', createdAt: 'c', sha256: 'secret-hash' },
    {
      name: 'b',
      role: 'admin',
      userId: 'u',
      username: 'u',
      createdAt: 'c',
      sha256: 'h',
      expiresAt: 'e',
      lastUsedAt: 'l',
    },
  );
  t.same(keys.list(), [
    { name: 'a', role: 'viewer', userId: 'u', username: 'u', createdAt: 'c' },
    { name: 'b', role: 'admin', userId: 'u', username: 'u', createdAt: 'c', expiresAt: 'e', lastUsedAt: 'l' },
  ]);
});

t.test('a key is revoked by a caller whose role covers its role, or when its role is unknown', async (t) => {
  const { store, keys } = service();
  const record = (role: string): ApiKeyRecord => ({
    name: 'k',
    role,
    userId: 'u',
    username: 'u',
    createdAt: 'c',
    sha256: 'h',
  });
  store.stored.set('mine', { uid: 'uid-m', record: record('viewer') });
  store.stored.set('boss', { uid: 'uid-b', record: record('admin') });
  store.stored.set('odd', { uid: 'uid-o', record: record('wizard') });
  store.stored.set('unreadable', { uid: 'uid-u', record: undefined });
  await keys.revoke(caller('operator'), 'mine');
  await t.rejects(keys.revoke(caller('operator'), 'boss'), {
    statusCode: 403,
    message: 'role operator may not revoke API key boss with role admin: only keys of roles it covers',
  });
  await keys.revoke(caller('viewer'), 'odd');
  await keys.revoke(caller('viewer'), 'unreadable');
  t.same(
    store.deleted.map((d) => d.uid),
    ['uid-m', 'uid-o', 'uid-u'],
    'each deleted as it was checked, by its uid',
  );
});

t.test('revoking a key that is not there is 404; one replaced meanwhile is 409', async (t) => {
  const { store, keys } = service();
  await t.rejects(keys.revoke(caller('admin'), 'none'), { statusCode: 404, message: 'API key none not found' });
  store.stored.set('gone', { uid: 'uid-g', record: undefined });
  store.deleteAnswer = false;
  await t.rejects(keys.revoke(caller('admin'), 'gone'), { statusCode: 404, message: 'API key gone not found' });
  store.deleteAnswer = new ReplacedError('API key gone was replaced');
  await t.rejects(keys.revoke(caller('admin'), 'gone'), {
    statusCode: 409,
    message: 'API key gone was replaced; try again',
  });
});
