import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { exportPKCS8, generateKeyPair, SignJWT } from 'jose';
import { KUBECONFIG_AUDIENCE, KUBECONFIG_ISSUER, SUBJECT_MAX_LENGTH } from '@gsp/platform-contract';
import { bearer, PLATFORM_ADMIN, token as apiToken } from '@gsp/api-server/testing';
import { fakeApiServer, kubectl, ORG, startStack, until } from './stack.js';

interface Review {
  status: { userInfo: { username: string } };
}

const ENTRA = 'https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/';
const LONGEST = ENTRA + 'u'.repeat(SUBJECT_MAX_LENGTH - ENTRA.length);

t.test('a 255-character subject is a member, gets a kubeconfig, and reaches the cluster as itself', async (t) => {
  const stack = await startStack(t);
  const [cluster] = stack.clusters;
  await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
  const put = await stack.api.app.inject({
    method: 'PUT',
    url: `/api/v1/tenants/${ORG}/members/${encodeURIComponent(LONGEST)}`,
    headers: await bearer(PLATFORM_ADMIN),
    payload: { role: 'operator' },
  });
  t.equal(put.statusCode, 200, put.body);
  const download = await stack.api.app.inject({
    url: `/api/v1/tenants/${ORG}/clusters/${cluster!.id}/kubeconfig`,
    headers: await bearer(LONGEST),
  });
  t.equal(download.statusCode, 200, download.body);
  const dir = mkdtempSync(join(tmpdir(), 'gsp-subject-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'kubeconfig'), download.body);

  const res = await kubectl(join(dir, 'kubeconfig'), ['auth', 'whoami', '-o', 'json']);
  t.equal(res.code, 0, res.stderr);
  t.equal((JSON.parse(res.stdout) as Review).status.userInfo.username, LONGEST, 'impersonated as the subject');
});

t.test('kubectl hears what to do about a token the proxy refuses, never the library', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-refusals-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  writeFileSync(join(dir, 'signing.pem'), await exportPKCS8(privateKey));
  const stack = await startStack(t, { apiEnv: { KUBECONFIG_SIGNING_KEY_FILE: join(dir, 'signing.pem') } });
  const [cluster] = stack.clusters;
  const id = cluster!.id;
  await until('the agent to connect', () => (cluster!.agent.connected ? true : undefined));
  const kubeconfig = await cluster!.kubeconfig();
  const now = Math.floor(Date.now() / 1000);
  const sign = (sub: string, exp: number) =>
    new SignJWT({ cluster: id })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(KUBECONFIG_ISSUER)
      .setAudience(KUBECONFIG_AUDIENCE)
      .setSubject(sub)
      .setExpirationTime(exp)
      .sign(privateKey);
  /** kubectl with the downloaded kubeconfig, its token replaced. */
  const run = async (token: string) => {
    const path = join(dir, `${Math.random()}.yaml`);
    writeFileSync(path, readFileSync(kubeconfig, 'utf8').replace(/token: "[^"]*"/, `token: ${JSON.stringify(token)}`));
    return kubectl(path, ['get', 'namespaces']);
  };
  const hint = new RegExp(`download a (new )?kubeconfig for cluster ${id} from the platform API server`);

  const expired = await run(await sign('olivia', now - 60));
  t.not(expired.code, 0);
  const at = new Date((now - 60) * 1000).toISOString();
  t.match(expired.stderr, `the token expired at ${at}: download a new kubeconfig for cluster ${id}`);

  const within = await run(await sign('olivia', now - 2));
  t.equal(within.code, 0, `expired 2 s ago, within the default 5 s AUTH_CLOCK_TOLERANCE: ${within.stderr}`);

  for (const [what, token] of [
    ['not a JWT', 'not-a-token'],
    ['an API server token (HS256)', await apiToken('olivia')],
    [
      'signed by another key',
      await new SignJWT({ cluster: id })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(KUBECONFIG_ISSUER)
        .setAudience(KUBECONFIG_AUDIENCE)
        .setSubject('olivia')
        .setExpirationTime('1h')
        .sign((await generateKeyPair('ES256')).privateKey),
    ],
    [
      'for another audience',
      await new SignJWT({ cluster: id })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(KUBECONFIG_ISSUER)
        .setAudience('someone-else')
        .setSubject('olivia')
        .setExpirationTime('1h')
        .sign(privateKey),
    ],
  ] as const) {
    const res = await run(token);
    t.not(res.code, 0, what);
    t.match(res.stderr, 'this is not a kubeconfig token for this proxy', what);
    t.match(res.stderr, hint, what);
    t.notMatch(
      res.stderr,
      /Compact JWS|Header Parameter|signature verification failed|JWSInvalid|"aud"/,
      `${what}: no library text`,
    );
  }

  const reserved = await run(await sign('system:kube-controller-manager', now + 3600));
  t.not(reserved.code, 0);
  t.match(reserved.stderr, /cannot be impersonated at the cluster: .*does not begin with "system:"/);
});

t.test('a token naming a system: subject never reaches the cluster', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-reserved-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  writeFileSync(join(dir, 'signing.pem'), await exportPKCS8(privateKey));
  const stack = await startStack(t, { clusters: 0, apiEnv: { KUBECONFIG_SIGNING_KEY_FILE: join(dir, 'signing.pem') } });
  const seen: string[][] = [];
  const { id } = await stack.addCluster(
    'reserved',
    await fakeApiServer(t, (req, res) => {
      seen.push(req.rawHeaders);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    }),
  );
  const forged = await new SignJWT({ cluster: id })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(KUBECONFIG_ISSUER)
    .setAudience(KUBECONFIG_AUDIENCE)
    .setSubject('system:kube-controller-manager')
    .setExpirationTime('1h')
    .sign(privateKey);
  t.equal(await stack.proxyStatus(id, '/api/v1/namespaces', forged), 401);
  t.same(seen, [], 'nothing reached the cluster');
});
