import { Panel } from '../../components/panel';
import type { Me } from '../session/api';

const ROLE_NAMES = new Map([
  ['admin', 'Admin'],
  ['operator', 'Operator'],
  ['viewer', 'Viewer'],
]);

export function TenantList({ tenants }: { tenants: Me['tenants'] }) {
  return (
    <Panel title="Your tenants">
      {tenants.length === 0 ? (
        <p>You are not a member of any tenant yet. A tenant admin or a platform admin can add you.</p>
      ) : (
        <ul className="tenants">
          {tenants.map(({ org, role }) => (
            <li key={org}>
              <span className="tenant-name">{org}</span>
              <span className="tag">{ROLE_NAMES.get(role) ?? role}</span>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}
