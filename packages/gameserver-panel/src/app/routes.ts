import { useEffect, useState } from 'react';

/** The panel's hash routes: `#/servers` (the default), `#/servers/<ns>/<name>`, `#/fleets`, ... */
export type Route =
  | { page: 'servers' }
  | { page: 'server'; namespace: string; name: string }
  | { page: 'fleets' }
  | { page: 'profiles' }
  | { page: 'apikeys' }
  | { page: 'unknown'; hash: string };

const SIMPLE = new Map<string, Route>([
  ['', { page: 'servers' }],
  ['servers', { page: 'servers' }],
  ['fleets', { page: 'fleets' }],
  ['profiles', { page: 'profiles' }],
  ['apikeys', { page: 'apikeys' }],
]);

function decoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** The route a location hash names (`#/servers/ns/name`; empty: the list). */
export function routeOf(hash: string): Route {
  const path = hash.replace(/^#\/?/, '').replace(/\/$/, '');
  const simple = SIMPLE.get(path);
  if (simple !== undefined) return simple;
  const parts = path.split('/');
  if (parts.length === 3 && parts[0] === 'servers') {
    const namespace = decoded(parts[1] ?? '');
    const name = decoded(parts[2] ?? '');
    if (namespace && name) return { page: 'server', namespace, name };
  }
  return { page: 'unknown', hash };
}

/** The current route, following the location hash. */
export function useRoute(): Route {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const follow = () => setHash(window.location.hash);
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return routeOf(hash);
}
