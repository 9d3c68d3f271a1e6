import t from 'tap';
import fc from 'fast-check';
import { CHALLENGES, CREDENTIAL_KINDS, credentialOf, missingChallenges } from '../../src/plugins/credentials.js';
import type { CredentialKind, CredentialSources } from '../../src/plugins/credentials.js';

const ALL = new Set(CREDENTIAL_KINDS);
const KEY = 'gsp_abc';
const BEARER = 'Bearer eyJ.token';
const BASIC = 'Basic cm9vdDpwdw==';
const none: CredentialSources = { apiKey: undefined, authorization: undefined, ticket: undefined, cookie: undefined };

t.test('an API key decides over an Authorization header and a ticket', async (t) => {
  t.same(credentialOf({ apiKey: ` ${KEY} `, authorization: BEARER, ticket: 'x', cookie: 'c' }, ALL), {
    kind: 'apikey',
    value: KEY,
  });
});

t.test('a bearer token or Basic credentials are passed on as the whole header, the scheme in any case', async (t) => {
  t.same(credentialOf({ ...none, authorization: BEARER }, ALL), { kind: 'bearer', value: BEARER });
  t.same(credentialOf({ ...none, authorization: 'bEaReR x' }, ALL), { kind: 'bearer', value: 'bEaReR x' });
  t.same(credentialOf({ ...none, authorization: BASIC }, ALL), { kind: 'basic', value: BASIC });
  t.same(credentialOf({ ...none, authorization: 'basic' }, ALL), { kind: 'basic', value: 'basic' });
});

t.test('X-API-Key sent twice is an empty key, which will be refused, not skipped', async (t) => {
  t.same(credentialOf({ ...none, apiKey: [KEY, KEY], authorization: BASIC }, ALL), { kind: 'apikey', value: '' });
});

t.test('a credential of a method that is off is not looked at: the next one decides', async (t) => {
  const basicOnly = new Set<CredentialKind>(['basic']);
  t.same(credentialOf({ ...none, apiKey: KEY, authorization: BASIC }, basicOnly), { kind: 'basic', value: BASIC });
  t.equal(credentialOf({ ...none, apiKey: KEY, authorization: BEARER }, basicOnly), undefined);
});

t.test('a ticket counts only when no credential header of a method on is present', async (t) => {
  t.same(credentialOf({ ...none, ticket: 'tkt' }, ALL), { kind: 'ticket', value: 'tkt' });
  t.same(credentialOf({ ...none, authorization: 'Digest x', ticket: 'tkt' }, ALL), { kind: 'ticket', value: 'tkt' });
  t.same(credentialOf({ ...none, authorization: BASIC, ticket: 'tkt' }, ALL), { kind: 'basic', value: BASIC });
  t.same(credentialOf({ ...none, apiKey: KEY, ticket: 'tkt' }, new Set<CredentialKind>(['basic'])), {
    kind: 'ticket',
    value: 'tkt',
  });
});

t.test(
  "the panel's session cookie counts only when no credential header of a method on, nor a ticket, is present",
  async (t) => {
    t.same(credentialOf({ ...none, cookie: 'sid' }, ALL), { kind: 'session', value: 'sid' });
    t.same(credentialOf({ ...none, authorization: 'Negotiate x', cookie: 'sid' }, ALL), {
      kind: 'session',
      value: 'sid',
    });
    t.same(credentialOf({ ...none, authorization: BEARER, cookie: 'sid' }, ALL), { kind: 'bearer', value: BEARER });
    t.same(credentialOf({ ...none, apiKey: KEY, cookie: 'sid' }, ALL), { kind: 'apikey', value: KEY });
    t.same(credentialOf({ ...none, ticket: 'tkt', cookie: 'sid' }, ALL), { kind: 'ticket', value: 'tkt' });
    t.same(credentialOf({ ...none, apiKey: KEY, cookie: 'sid' }, new Set<CredentialKind>()), {
      kind: 'session',
      value: 'sid',
    });
  },
);

t.test('no credential, or an unknown scheme, is none', async (t) => {
  t.equal(credentialOf(none, ALL), undefined);
  t.equal(credentialOf({ ...none, authorization: 'Negotiate abc' }, ALL), undefined);
  t.equal(credentialOf({ ...none, authorization: '' }, ALL), undefined);
});

t.test('the first present credential decides, whatever the others hold', async (t) => {
  const header = fc.option(fc.string({ maxLength: 20 }), { nil: undefined });
  fc.assert(
    fc.property(
      fc.subarray([...CREDENTIAL_KINDS]),
      header,
      fc.option(fc.constantFrom(BEARER, BASIC, 'Other x'), { nil: undefined }),
      header,
      header,
      (on, apiKey, authorization, ticket, cookie) => {
        const got = credentialOf({ apiKey, authorization, ticket, cookie }, new Set(on));
        const scheme = authorization?.split(' ')[0]?.toLowerCase();
        const expected: CredentialKind | 'ticket' | 'session' | undefined =
          on.includes('apikey') && apiKey !== undefined
            ? 'apikey'
            : on.includes('bearer') && scheme === 'bearer'
              ? 'bearer'
              : on.includes('basic') && scheme === 'basic'
                ? 'basic'
                : ticket !== undefined
                  ? 'ticket'
                  : cookie !== undefined
                    ? 'session'
                    : undefined;
        return got?.kind === expected;
      },
    ),
  );
  t.pass('checked');
});

t.test('a 401 without credentials names every method on, the bearer one without error', async (t) => {
  t.same(missingChallenges(ALL), [CHALLENGES.apikey, 'Bearer realm="gsp-control-plane"', CHALLENGES.basic]);
  t.same(missingChallenges(new Set<CredentialKind>(['basic', 'apikey'])), [CHALLENGES.apikey, CHALLENGES.basic]);
  t.match(CHALLENGES.bearer, /error="invalid_token"/);
});
