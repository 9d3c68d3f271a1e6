/**
 * `npm run -s token -- <subject> [--ttl 12h]`: prints an HS256 bearer token for <subject> that the
 * API server of `npm start` accepts (the secret in the data directory, or AUTH_JWT_SECRET), so a
 * tenant admin or a viewer can be tried beside the printed platform-admin token.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { durationVar } from '@gsp/service-kit';
import { devDataDir, devJwt, signDevToken } from './dev/auth.js';

const USAGE = `usage: npm run -s token -- <subject> [--ttl 12h]

Prints a bearer token for <subject> (an HS256 token of the API server that npm start runs).
Make the subject a member of a tenant first, as the platform admin, e.g.
  curl -s -X PUT http://127.0.0.1:8081/api/v1/tenants/dev/members/alice -H "Authorization: Bearer $TOKEN" \\
    -H 'Content-Type: application/json' -d '{"role": "viewer"}'
  export ALICE=$(npm run -s token -- alice)
--ttl   how long the token is valid: 30m, 12h, 7d (default 12h)
Reads DEV_DATA_DIR (default .data), AUTH_JWT_SECRET and AUTH_JWT_AUDIENCE as npm start does.`;

try {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { ttl: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const [subject, ...extra] = positionals;
  if (subject === undefined || extra.length > 0) throw new Error('give exactly one subject');
  const ttlMs = durationVar({ '--ttl': values.ttl }, '--ttl', 12 * 3_600_000);
  const jwt = devJwt(process.env, devDataDir(process.env, resolve(import.meta.dirname, '..')), false);
  console.log(await signDevToken(jwt, subject, ttlMs));
} catch (err) {
  console.error(`token: ${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
