import t from 'tap';
import fc from 'fast-check';
import { InvalidRequestError } from '@gsp/service-kit';
import {
  ACCESS_CHANGED_EVENT,
  AGENT_PRESENCE_EVENT,
  CLUSTER_REGISTERED_EVENT,
  FLAG_UPDATED_EVENT,
} from '@gsp/platform-contract';
import { resumeAfter } from '../src/events/last-event-id.js';
import { toFeedEvent, viewOf } from '../src/events/feed-event.js';
import type { FeedEvent } from '../src/events/feed-event.js';
import type { Identity } from '../src/events/identity.js';

const MAX = 2n ** 63n - 1n;

t.test('Last-Event-ID: every id from 0 to 2^63-1 is read back exactly', async (t) => {
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: MAX }), (id) => resumeAfter(id.toString(), undefined) === id));
  t.equal(resumeAfter(MAX.toString(), undefined), MAX);
});

t.test('Last-Event-ID: anything else is a 400 naming the rule, never a 500', async (t) => {
  const canonical = /^(0|[1-9][0-9]*)$/;
  const digitsAndMore = fc.string({ unit: fc.constantFrom('0', '1', '9', '-', '+', ' ', '.', 'e', 'x', '\n', '٣') });
  fc.assert(
    fc.property(fc.oneof(fc.string(), digitsAndMore), (raw) => {
      if (raw === '') return true;
      const valid = canonical.test(raw) && BigInt(raw) <= MAX;
      try {
        const id = resumeAfter(raw, undefined);
        return valid && id === BigInt(raw);
      } catch (err) {
        return !valid && err instanceof InvalidRequestError && /a whole number from 0 to/.test(err.message);
      }
    }),
  );
  t.throws(() => resumeAfter((MAX + 1n).toString(), undefined), InvalidRequestError, 'one past the largest id');
  t.throws(() => resumeAfter('007', undefined), InvalidRequestError, 'leading zeros are not an id we sent');
});

t.test('the Last-Event-ID header wins over the lastEventId query parameter; empty is none', async (t) => {
  t.equal(resumeAfter('9', '5'), 9n, 'an EventSource keeps its URL and sends newer ids in the header');
  t.equal(resumeAfter(undefined, '5'), 5n);
  t.equal(resumeAfter('', '5'), 5n);
  t.equal(resumeAfter('', ''), undefined);
  t.equal(resumeAfter(undefined, undefined), undefined);
  t.throws(() => resumeAfter(undefined, 'x'), /^lastEventId must be/);
});

const viewer = (
  subject: string,
  tenants: Record<string, 'admin' | 'operator' | 'viewer'>,
  platformAdmin = false,
): Identity => ({
  subject,
  platformAdmin,
  tenants: new Map(Object.entries(tenants)),
});
const root = viewer('root', {}, true);
const aliceAdminOfA = viewer('alice', { a: 'admin' });
const carolViewerOfA = viewer('carol', { a: 'viewer' });
const bobOfB = viewer('bob', { b: 'operator' });

const event = (type: string, payload: object): FeedEvent => {
  const e = toFeedEvent(type, { id: '7', ...payload });
  if (e === undefined) throw new Error('not an event');
  return e;
};
const dataOf = (e: FeedEvent, as: Identity): Record<string, unknown> | undefined => {
  const view = viewOf(as, e);
  if (view === undefined) return undefined;
  const data = /^data: (.*)$/m.exec(e.frame(view))![1]!;
  return JSON.parse(data) as Record<string, unknown>;
};

t.test('a platform flag is seen by everyone; tenants without the platform admin subject', async (t) => {
  const e = event(FLAG_UPDATED_EVENT, {
    flag: 'cli_access.enabled',
    actor: 'root',
    actorRole: 'platform-admin',
    scope: { type: 'platform', platformId: 'default' },
    value: false,
    reason: 'incident 42',
    expiresAt: '2030-01-01T00:00:00.000Z',
    setAt: '2029-12-31T00:00:00.000Z',
  });
  t.match(dataOf(e, root), { actor: 'root', actorRole: 'platform-admin', reason: 'incident 42' });
  for (const who of [aliceAdminOfA, carolViewerOfA, bobOfB])
    t.same(dataOf(e, who), {
      flag: 'cli_access.enabled',
      scope: { type: 'platform' },
      value: false,
      setAt: '2029-12-31T00:00:00.000Z',
      reason: 'incident 42',
      expiresAt: '2030-01-01T00:00:00.000Z',
      cause: 'request',
      actor: null,
      actorRole: 'platform-admin',
    });
  const legacy = event(FLAG_UPDATED_EVENT, { flag: 'f', actor: 'root', scope: { type: 'platform' }, value: true });
  t.match(dataOf(legacy, carolViewerOfA), { actor: null, actorRole: 'platform-admin' }, 'without actorRole too');
});

t.test('an expiry is shown as the system actor to everyone who sees it', async (t) => {
  const e = event(FLAG_UPDATED_EVENT, {
    flag: 'f',
    actor: 'system:expiry',
    scope: { type: 'platform' },
    value: null,
    cause: 'expiry',
  });
  t.match(dataOf(e, carolViewerOfA), { actor: 'system:expiry', actorRole: 'system', cause: 'expiry', value: null });
});

t.test("a tenant's cluster events reach its members and platform admins only", async (t) => {
  const flag = event(FLAG_UPDATED_EVENT, {
    flag: 'f',
    actor: 'alice',
    actorRole: 'admin',
    scope: { type: 'cluster', org: 'a', clusterId: 'c1' },
    value: false,
  });
  const registered = event(CLUSTER_REGISTERED_EVENT, { org: 'a', clusterId: 'c1', name: 'n', actor: 'alice' });
  const deleted = event(ACCESS_CHANGED_EVENT, { kind: 'cluster-deleted', org: 'a', clusterId: 'c1', actor: 'x' });
  const agent = event(AGENT_PRESENCE_EVENT, { org: 'a', clusterId: 'c1', connected: true, since: 'then' });
  for (const e of [flag, registered, deleted, agent]) {
    t.ok(viewOf(root, e), `${e.name}: platform admin`);
    t.ok(viewOf(aliceAdminOfA, e), `${e.name}: tenant admin`);
    t.ok(viewOf(carolViewerOfA, e), `${e.name}: tenant viewer`);
    t.equal(viewOf(bobOfB, e), undefined, `${e.name}: not another tenant's member`);
  }
  t.match(dataOf(flag, carolViewerOfA), { actor: 'alice', actorRole: 'admin' }, "a fellow member's name is shown");
  t.same(dataOf(agent, carolViewerOfA), { org: 'a', clusterId: 'c1', connected: true, since: 'then' });
  t.same(dataOf(deleted, root), {
    kind: 'deleted',
    org: 'a',
    clusterId: 'c1',
    actor: 'x',
    actorRole: null,
  });
  t.same(
    dataOf(deleted, aliceAdminOfA),
    { kind: 'deleted', org: 'a', clusterId: 'c1', actor: null, actorRole: null },
    'an actor whose role is unknown is not named to tenants',
  );
});

t.test("member changes reach the tenant's admins and the member concerned", async (t) => {
  const e = event(ACCESS_CHANGED_EVENT, { kind: 'member', org: 'a', subject: 'carol', role: null, actor: 'alice' });
  e.actorRole = 'admin';
  t.ok(viewOf(root, e));
  t.ok(viewOf(aliceAdminOfA, e), 'tenant admins (who may list members)');
  t.ok(viewOf(carolViewerOfA, e), 'the member removed');
  t.equal(viewOf(viewer('dan', { a: 'viewer' }), e), undefined, 'not other viewers, who may not list members');
  t.equal(viewOf(viewer('eve', { a: 'operator' }), e), undefined, 'nor operators');
  t.equal(viewOf(bobOfB, e), undefined);
  const added = event(ACCESS_CHANGED_EVENT, {
    kind: 'member',
    org: 'z',
    subject: 'bob',
    role: 'viewer',
    actor: 'root',
  });
  t.ok(viewOf(bobOfB, added), 'a subject sees being added to a tenant it is not in yet');
});

t.test('payloads of another shape, or without an outbox id, are not shown', async (t) => {
  t.equal(
    toFeedEvent(FLAG_UPDATED_EVENT, {
      flag: 'f',
      actor: 'a',
      scope: { type: 'cluster', clusterId: 'c' },
      value: true,
      id: '1',
    }),
    undefined,
    'a cluster value without its tenant',
  );
  t.equal(
    toFeedEvent(FLAG_UPDATED_EVENT, { flag: 'f', actor: 'a', scope: { type: 'platform' }, value: true }),
    undefined,
    'no id',
  );
  t.equal(
    toFeedEvent(FLAG_UPDATED_EVENT, { flag: 'f', actor: 'a', scope: { type: 'platform' }, value: true, id: 7 }),
    undefined,
    'a numeric id',
  );
  t.equal(toFeedEvent(AGENT_PRESENCE_EVENT, { org: 'a', clusterId: 'c', id: '1' }), undefined);
  t.equal(toFeedEvent('something.else', { id: '1' }), undefined);
  t.equal(toFeedEvent(FLAG_UPDATED_EVENT, null), undefined);
});
