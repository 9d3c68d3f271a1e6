import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import t from 'tap';
import { workspaceDir } from '@gsp/service-kit/testing/entry';

const script = join(workspaceDir(import.meta.url), 'scripts', 'token.ts');
const SECRET = 'a-development-secret-of-at-least-32-bytes';

function token(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      ['--conditions=@gsp/source', '--import', 'tsx', script, ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

t.test(
  'npm run token signs an HS256 token for the subject with the secret of npm start and the audience',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gsp-token-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'dev-jwt-secret'), SECRET);
    const { code, stdout } = await token(['alice', '--ttl', '1h'], { DEV_DATA_DIR: dir });
    t.equal(code, 0);
    const { payload } = await jwtVerify(stdout.trim(), new TextEncoder().encode(SECRET), {
      audience: 'gsp-api',
      algorithms: ['HS256'],
    });
    t.equal(payload.sub, 'alice');
    t.ok(payload.exp! - payload.iat! === 3600, 'valid for the --ttl asked');
  },
);

t.test('npm run token says what is missing instead of signing a token nobody accepts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const missing = await token(['alice'], { DEV_DATA_DIR: dir });
  t.equal(missing.code, 2);
  t.match(missing.stderr, /dev-jwt-secret does not exist: run npm start first, or set AUTH_JWT_SECRET/);
  const oidcLike = await token(['https://issuer#alice'], { AUTH_JWT_SECRET: SECRET });
  t.equal(oidcLike.code, 2);
  t.match(oidcLike.stderr, /without "#"/);
  const none = await token([], { AUTH_JWT_SECRET: SECRET });
  t.equal(none.code, 2);
  t.match(none.stderr, /usage: npm run -s token -- <subject>/);
});
