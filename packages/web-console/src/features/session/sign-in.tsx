import { apiUrl } from '../../lib/api';
import { Panel } from '@gsp/ui';

export function SignIn() {
  return (
    <Panel title="Sign in">
      <p>Sign in with your organisation's account to see and switch CLI access for your tenants.</p>
      <a className="button" href={apiUrl('/console/auth/login')}>
        Sign in
      </a>
    </Panel>
  );
}
