import t from 'tap';
import { matchesLabels, parseLabelFilter } from '../src/features/servers/label-filter.js';
import { can, namespacesFor, whyNot } from '../src/lib/session.js';
import type { PanelSession } from '../src/lib/session.js';

t.test('label filters are a selector’s equality terms', async (t) => {
  t.same(parseLabelFilter('  '), { ok: true, terms: [] }, 'empty: no filter');
  const parsed = parseLabelFilter('tier=gold, mode != ranked,gsp.dev/profile==arena,empty=');
  t.same(parsed, {
    ok: true,
    terms: [
      { key: 'tier', value: 'gold', equal: true },
      { key: 'mode', value: 'ranked', equal: false },
      { key: 'gsp.dev/profile', value: 'arena', equal: true },
      { key: 'empty', value: '', equal: true },
    ],
  });
  if (!parsed.ok) return;
  t.ok(matchesLabels({ tier: 'gold', 'gsp.dev/profile': 'arena', empty: '' }, parsed.terms));
  t.notOk(matchesLabels({ tier: 'gold', mode: 'ranked', 'gsp.dev/profile': 'arena', empty: '' }, parsed.terms));
  t.notOk(matchesLabels({ 'gsp.dev/profile': 'arena', empty: '' }, parsed.terms), 'a missing label fails =');
  t.ok(matchesLabels({}, [{ key: 'mode', value: 'x', equal: false }]), 'a missing label passes !=');
  t.notOk(matchesLabels({}, [{ key: 'constructor', value: '', equal: true }]), 'own keys only');
});

t.test('a malformed label term is named in a sentence', async (t) => {
  for (const bad of ['tier', 'tier=gold,', 'tier in (a,b)', '=gold', 'tier=go ld', '-x=1']) {
    const parsed = parseLabelFilter(bad);
    t.equal(parsed.ok, false, bad);
    if (!parsed.ok) t.match(parsed.error, /is not a label term: write key=value or key!=value/);
  }
});

const session = (role: string | null, permissions: PanelSession['permissions']): PanelSession => ({
  signedIn: true,
  methods: { oidc: false, basic: true, apikey: true },
  userId: 'u',
  username: 'u',
  role,
  authMethod: 'apikey',
  expiresAt: null,
  permissions,
});

t.test('can and whyNot follow the grants, per namespace', async (t) => {
  const viewer = session('viewer', [{ resource: 'gameservers', verb: 'list', namespaces: '*' }]);
  t.ok(can(viewer, 'gameservers', 'list', 'any'));
  t.notOk(can(viewer, 'gameservers', 'create'));
  t.equal(whyNot(viewer, 'gameservers', 'create'), 'Your role (viewer) cannot create game servers; ask an admin.');
  t.equal(
    whyNot(viewer, 'gameservers', 'execute'),
    'Your role (viewer) cannot run actions; ask an operator or an admin.',
  );
  const limited = session('games-admin', [
    { resource: 'gameservers', verb: 'delete', namespaces: ['games'] },
    { resource: 'gameservers', verb: 'list', namespaces: ['games', 'arena'] },
  ]);
  t.ok(can(limited, 'gameservers', 'delete', 'games'));
  t.notOk(can(limited, 'gameservers', 'delete', 'arena'));
  t.equal(
    whyNot(limited, 'gameservers', 'delete', 'arena'),
    'Your role (games-admin) cannot delete game servers in namespace arena; ask an admin.',
  );
  t.same(namespacesFor(limited, 'gameservers', 'list'), ['arena', 'games']);
  t.equal(whyNot(session(null, []), 'apikeys', 'list'), 'You have no role, so you cannot see API keys; ask an admin.');
});
