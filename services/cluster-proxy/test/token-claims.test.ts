import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { exportPKCS8, generateKeyPair, SignJWT } from 'jose';
import { KUBECONFIG_AUDIENCE, KUBECONFIG_ISSUER } from '@gsp/platform-contract';
import { fakeApiServer, startStack } from './stack.js';

// The API refuses such subjects; this is the second wall, for a token signed with the
// platform's key anyway (a binding written by hand, an older release, a bug).
t.test(
  'a kubeconfig token whose subject carries a line break is refused at the proxy and never reaches the cluster',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gsp-claims-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    writeFileSync(join(dir, 'signing.pem'), await exportPKCS8(privateKey));
    const stack = await startStack(t, {
      clusters: 0,
      apiEnv: { KUBECONFIG_SIGNING_KEY_FILE: join(dir, 'signing.pem') },
    });
    const seen: string[][] = [];
    const { id, token: honest } = await stack.addCluster(
      'headers',
      await fakeApiServer(t, (req, res) => {
        seen.push(req.rawHeaders);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }),
    );
    const sign = (sub: string, cluster: string) =>
      new SignJWT({ cluster })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(KUBECONFIG_ISSUER)
        .setAudience(KUBECONFIG_AUDIENCE)
        .setSubject(sub)
        .setExpirationTime('1h')
        .sign(privateKey);

    t.equal(
      await stack.proxyStatus(
        id,
        '/api/v1/namespaces',
        await sign('mallory-x\r\nImpersonate-Group: system:masters', id),
      ),
      401,
    );
    t.equal(await stack.proxyStatus(id, '/api/v1/namespaces', await sign('mallory\u0000', id)), 401, 'a NUL too');
    t.equal(await stack.proxyStatus(id, '/api/v1/namespaces', honest), 200, 'an honest kubeconfig works');
    t.equal(seen.length, 1, 'only the honest request reached the cluster');
    t.notOk(
      seen.flat().some((h) => /system:masters|mallory/.test(h)),
      'nothing of the forged subject arrived',
    );
  },
);
