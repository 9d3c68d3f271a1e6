import t from 'tap';
import { CLI_ACCESS_ENABLED } from '@gsp/flags-client';
import type { FlagChange, FlagsClient } from '@gsp/flags-client';
import type { Queryable } from '@gsp/platform-contract';
import { OfrepService } from '../../src/ofrep/service.js';

type Listener = (change: FlagChange) => void;

/** The part of the flags client `watch` uses, its change listeners, with a way to announce a change. */
function flagChanges() {
  const listeners = new Map<string, Set<Listener>>();
  const client = {
    onChange(key: string, listener: Listener): () => void {
      const set = listeners.get(key) ?? new Set<Listener>();
      listeners.set(key, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
  return {
    client: client as unknown as FlagsClient,
    announce(scope: FlagChange['scope']): void {
      for (const listener of listeners.get(CLI_ACCESS_ENABLED) ?? []) listener({ key: CLI_ACCESS_ENABLED, scope });
    },
    count: (): number => [...listeners.values()].reduce((sum, set) => sum + set.size, 0),
  };
}

// watch reads no rows; a database that answers nothing shows it.
const noDatabase = { query: () => Promise.reject(new Error('no database in this test')) } as unknown as Queryable;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

t.test('changes announced in one turn of the event loop are one refetch', async (t) => {
  const changes = flagChanges();
  const ofrep = new OfrepService(noDatabase, changes.client, 'default');
  let refetches = 0;
  ofrep.watch({}, () => refetches++);
  changes.announce({ type: 'platform' });
  changes.announce({ type: 'all' });
  t.equal(refetches, 0, 'not before the turn ends');
  await nextTurn();
  t.equal(refetches, 1);
  changes.announce({ type: 'platform' });
  await nextTurn();
  t.equal(refetches, 2, 'a later change is a refetch of its own');
});

t.test("a cluster's change reaches only streams for that cluster; platform changes reach every stream", async (t) => {
  const changes = flagChanges();
  const ofrep = new OfrepService(noDatabase, changes.client, 'default');
  const heard: string[] = [];
  ofrep.watch({}, () => heard.push('platform stream'));
  ofrep.watch({ org: 'acme', clusterId: 'c1' }, () => heard.push('c1 stream'));
  changes.announce({ type: 'cluster', clusterId: 'c2' });
  await nextTurn();
  t.same(heard, [], 'another cluster: nobody');
  changes.announce({ type: 'cluster', clusterId: 'c1' });
  await nextTurn();
  t.same(heard, ['c1 stream']);
  heard.length = 0;
  changes.announce({ type: 'platform' });
  await nextTurn();
  t.same(heard.sort(), ['c1 stream', 'platform stream']);
});

t.test('the unsubscribe releases every listener and no refetch follows', async (t) => {
  const changes = flagChanges();
  const ofrep = new OfrepService(noDatabase, changes.client, 'default');
  let refetches = 0;
  const unwatch = ofrep.watch({}, () => refetches++);
  t.ok(changes.count() > 0, 'subscribed');
  unwatch();
  t.equal(changes.count(), 0);
  changes.announce({ type: 'platform' });
  await nextTurn();
  t.equal(refetches, 0);
});

t.test('a context without a tenant needs no database read to be allowed', async (t) => {
  const ofrep = new OfrepService(noDatabase, flagChanges().client, 'default');
  await t.resolves(ofrep.checkAccess('anyone', {}));
});
