/**
 * The tests' ingress routes as the Ingress API defines paths: `Prefix` matches whole segments,
 * `Exact` only itself, and of several matches the longest path wins.
 */
import t from 'tap';
import fc from 'fast-check';
import { match, prefixMatches } from './ingress-proxy.js';

const segment = fc.stringMatching(/^[a-z0-9.-]{1,6}$/);
const path = fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);

t.test('Prefix matches a path by whole segments, with or without a trailing slash', async (t) => {
  t.ok(prefixMatches('/', '/anything/at/all'));
  t.ok(prefixMatches('/console', '/console/'));
  t.ok(prefixMatches('/console/', '/console'));
  t.ok(prefixMatches('/console', '/console/auth/callback'));
  t.notOk(prefixMatches('/console', '/consoles'), 'not by characters');
  fc.assert(
    fc.property(path, path, (a, b) => {
      const joined = `${a.replace(/\/$/, '')}/${b.replace(/^\//, '')}`;
      return prefixMatches(a, joined) && prefixMatches(a, a) && prefixMatches(`${a}/`.replace('//', '/'), a);
    }),
  );
  fc.assert(
    fc.property(path, segment, segment, (base, x, y) => {
      fc.pre(x !== y && !y.startsWith(x));
      return !prefixMatches(`${base}/${x}`.replace('//', '/'), `${base}/${y}`.replace('//', '/'));
    }),
  );
});

t.test('a host rule wins over a host-less one; Exact, then the longest Prefix', async (t) => {
  const routes = [
    { host: undefined, path: '/', exact: false, backend: 'default:80' },
    { host: 'platform.example.com', path: '/', exact: false, backend: 'api:80' },
    { host: 'platform.example.com', path: '/console', exact: false, backend: 'console:80' },
    { host: 'platform.example.com', path: '/console/x', exact: true, backend: 'exact:80' },
  ];
  t.equal(match(routes, 'platform.example.com', '/api/v1')?.backend, 'api:80');
  t.equal(match(routes, 'platform.example.com', '/console/auth/callback')?.backend, 'console:80');
  t.equal(match(routes, 'platform.example.com', '/console/x')?.backend, 'exact:80');
  t.equal(match(routes, 'other.example.com', '/console')?.backend, 'default:80');
  t.equal(match(routes.slice(1), 'other.example.com', '/'), undefined, 'no rule: the default backend answers 404');
});
