import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { exportJWK, generateKeyPair, importPKCS8, SignJWT } from 'jose';
import type { JWK } from 'jose';
import { KUBECONFIG_AUDIENCE, KUBECONFIG_ISSUER } from '@gsp/platform-contract';

export interface KubeconfigSigner {
  /** The public keys for `/.well-known/jwks.json`. */
  jwks: { keys: JWK[] };
  /** A token for `subject` that opens `clusterId` through the proxy until it expires. */
  issue(subject: string, clusterId: string): Promise<{ token: string; expiresAt: Date }>;
}

/**
 * ES256 signing. With a PKCS#8 PEM key file the key (and so every issued token) survives
 * restarts and is shared by replicas; without one a key pair is generated at start, which
 * suits a single replica (tokens issued before a restart stop verifying).
 */
export async function createKubeconfigSigner(options: {
  keyFile?: string | undefined;
  ttlMs: number;
}): Promise<KubeconfigSigner> {
  let privateKey: Awaited<ReturnType<typeof importPKCS8>>;
  let publicJwk: JWK;
  if (options.keyFile !== undefined) {
    privateKey = await importPKCS8(readFileSync(options.keyFile, 'utf8'), 'ES256', { extractable: true });
    const { d: _d, ...pub } = await exportJWK(privateKey);
    publicJwk = pub;
  } else {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    publicJwk = await exportJWK(pair.publicKey);
  }
  const kid = createHash('sha256').update(`${publicJwk.x}.${publicJwk.y}`).digest('base64url').slice(0, 16);
  const jwk: JWK = { ...publicJwk, kid, alg: 'ES256', use: 'sig' };
  return {
    jwks: { keys: [jwk] },
    async issue(subject, clusterId) {
      const expiresAt = new Date(Date.now() + options.ttlMs);
      const token = await new SignJWT({ cluster: clusterId })
        .setProtectedHeader({ alg: 'ES256', kid })
        .setIssuer(KUBECONFIG_ISSUER)
        .setAudience(KUBECONFIG_AUDIENCE)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(privateKey);
      return { token, expiresAt };
    },
  };
}

/** JSON strings are valid YAML scalars, so quoting with JSON.stringify is safe. */
export function renderKubeconfig(input: {
  clusterName: string;
  server: string;
  user: string;
  token: string;
  ca?: string | undefined;
  insecureSkipTlsVerify?: boolean | undefined;
}): string {
  const q = JSON.stringify;
  const context = input.clusterName;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${q(input.clusterName)}`,
    '  cluster:',
    `    server: ${q(input.server)}`,
    ...(input.ca !== undefined
      ? [`    certificate-authority-data: ${q(Buffer.from(input.ca).toString('base64'))}`]
      : []),
    ...(input.insecureSkipTlsVerify ? ['    insecure-skip-tls-verify: true'] : []),
    'users:',
    `- name: ${q(input.user)}`,
    '  user:',
    `    token: ${q(input.token)}`,
    'contexts:',
    `- name: ${q(context)}`,
    '  context:',
    `    cluster: ${q(input.clusterName)}`,
    `    user: ${q(input.user)}`,
    `current-context: ${q(context)}`,
    '',
  ].join('\n');
}
