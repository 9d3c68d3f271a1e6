import t from 'tap';
import fc from 'fast-check';
import { dns1035LabelErrors, dns1123LabelErrors, dns1123SubdomainErrors, qualifiedNameErrors } from '@gsp/kube-lite';

// The documented rules ("Object Names and IDs"), written as plain oracles.
const isDns1123Label = (s: string): boolean =>
  s.length >= 1 && s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);
const isDns1123Subdomain = (s: string): boolean =>
  s.length >= 1 && s.length <= 253 && s.split('.').every((part) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(part));
const isDns1035Label = (s: string): boolean =>
  s.length >= 1 && s.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s);

// Names from an alphabet that includes the edge cases: capitals, '_', '.', '-' and digits.
const candidate = fc.string({ unit: fc.constantFrom(...'abz09-.A_'.split('')), maxLength: 12 });
const longCandidate = fc.string({ unit: fc.constantFrom(...'ab-.'.split('')), minLength: 50, maxLength: 300 });
const anyName = fc.oneof(candidate, longCandidate);

t.test('DNS-1123 labels are accepted exactly when the documented rule says so', async () => {
  fc.assert(
    fc.property(anyName, (s) => (dns1123LabelErrors(s).length === 0) === isDns1123Label(s)),
    { numRuns: 3000 },
  );
});

t.test('DNS-1123 subdomains are accepted exactly when the documented rule says so', async () => {
  fc.assert(
    fc.property(anyName, (s) => (dns1123SubdomainErrors(s).length === 0) === isDns1123Subdomain(s)),
    { numRuns: 3000 },
  );
});

t.test('DNS-1035 labels (service names) are accepted exactly when the documented rule says so', async () => {
  fc.assert(
    fc.property(anyName, (s) => (dns1035LabelErrors(s).length === 0) === isDns1035Label(s)),
    { numRuns: 3000 },
  );
});

t.test('every name built from the grammar is valid, up to the length limits', async () => {
  const label = fc
    .tuple(
      fc.constantFrom(...'a0z9'),
      fc.string({ unit: fc.constantFrom(...'a0-'), maxLength: 61 }),
      fc.constantFrom(...'b1'),
    )
    .map(([a, m, b]) => `${a}${m}${b}`);
  fc.assert(
    fc.property(fc.array(label, { minLength: 1, maxLength: 6 }), (labels) => {
      const name = labels.join('.');
      return (
        (dns1123SubdomainErrors(name).length === 0) === name.length <= 253 &&
        labels.every((l) => dns1123LabelErrors(l).length === 0)
      );
    }),
  );
});

t.test('the messages are the ones the API server gives', async (t) => {
  t.match(
    dns1123SubdomainErrors('Bad_Name')[0],
    new RegExp(
      "^a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '\\.', " +
        'and must start and end with an alphanumeric character',
    ),
  );
  t.match(dns1123LabelErrors('a.b')[0], /^a lowercase RFC 1123 label must consist of/);
  t.match(dns1123LabelErrors('a'.repeat(64))[0], 'must be no more than 63 characters');
  t.match(
    dns1035LabelErrors('1abc')[0],
    /^a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character/,
  );
});

t.test('label keys may carry a DNS subdomain prefix', async (t) => {
  t.same(qualifiedNameErrors('gsp.dev/apikey'), []);
  t.same(qualifiedNameErrors('app.kubernetes.io/name'), []);
  t.not(qualifiedNameErrors('Gsp.Dev/apikey').length, 0);
  t.not(qualifiedNameErrors('/apikey').length, 0);
  t.not(qualifiedNameErrors('a/b/c').length, 0);
});
