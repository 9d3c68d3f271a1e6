import { can } from '../lib/session';
import type { PanelSession } from '../lib/session';
import type { Route } from './routes';

const LINKS = [
  { href: '#/servers', label: 'Servers', pages: ['servers', 'server'] },
  { href: '#/fleets', label: 'Fleets', pages: ['fleets'] },
  { href: '#/profiles', label: 'Profiles', pages: ['profiles'] },
  { href: '#/apikeys', label: 'API keys', pages: ['apikeys'] },
] as const;

/** The panel's sections; API keys only for a role that may list them. */
export function Nav({ session, route }: { session: PanelSession; route: Route }) {
  const links = LINKS.filter((l) => l.href !== '#/apikeys' || can(session, 'apikeys', 'list'));
  return (
    <nav className="nav" aria-label="Panel">
      <ul>
        {links.map((l) => (
          <li key={l.href}>
            <a href={l.href} aria-current={(l.pages as readonly string[]).includes(route.page) ? 'page' : undefined}>
              {l.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
