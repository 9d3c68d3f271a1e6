/** The Secrets an operator creates, and a full installation of each chart that uses them all. */
import { generateKeyPairSync } from 'node:crypto';
import { generateSelfSignedCertificate } from '@gsp/service-kit';

const certificate = generateSelfSignedCertificate('gsp-test');
/** The Secrets an operator creates before installing; their values must never appear in a manifest. */
export const secrets: Record<string, Record<string, string>> = {
  'gsp-db': { url: 'postgres://gsp:db-password-1f2e@db.internal:5432/gsp' },
  'gsp-redis': { url: 'redis://:redis-password-9a8b@redis.internal:6379' },
  'gsp-jwt': { secret: 'jwt-secret-0123456789abcdef0123456789abcdef' },
  'gsp-signing': {
    'key.pem': generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string,
  },
  'gsp-proxy-tls': { 'tls.crt': certificate.cert, 'tls.key': certificate.key, 'ca.crt': certificate.cert },
  'gsp-tunnel-tls': { 'tls.crt': certificate.cert, 'tls.key': certificate.key },
  'cp-basic': { 'password-hash': '$2b$10$JCeIjG3XCknllMS5sizzgeMjiY4D/7KwdVHqj60sLXKvZLaP5bBHC' },
  'agent-token': { token: 'agent-token-5c4d3e2f' },
  'proxy-ca': { 'ca.crt': certificate.cert },
  'gsp-ofrep': { token: 'ofrep-token-7e6d5c4b' },
  'gsp-console': { 'client-secret': 'console-client-secret-3b2a1f0e' },
  'gsp-panel': { 'client-secret': 'panel-client-secret-9e8d7c6b' },
  'gsp-audit-webhook': { secret: 'audit-hmac-key-8d7c6b5a4f3e2d1c', token: 'audit-bearer-token-2c3d4e5f' },
  'siem-ca': { 'ca.crt': certificate.cert },
  'gsp-audit-otlp': { headers: 'authorization=Bearer%20otlp-token-6f5e4d3c,x-scope-orgid=gsp' },
};

/** Both audit sinks, each credential in a Secret: the same values for the control plane and the API server. */
export const audit = {
  webhook: {
    url: 'https://siem.example.com/audit',
    existingSecret: 'gsp-audit-webhook',
    tokenKey: 'token',
    ca: { existingSecret: 'siem-ca' },
  },
  otlp: { url: 'http://otel-collector.observability:4318', existingSecret: 'gsp-audit-otlp' },
};

/** A full installation of each chart, every option that takes a Secret or a file turned on. */
export const full: Record<string, Record<string, unknown>> = {
  platform: {
    database: { existingSecret: 'gsp-db' },
    redis: { existingSecret: 'gsp-redis' },
    cliAccess: { pinned: 'true', staleMode: 'strict' },
    apiServer: {
      replicaCount: 3,
      platformAdmins: ['alice', 'bob'],
      auth: {
        jwtSecret: { existingSecret: 'gsp-jwt' },
        oidc: { issuerUrl: 'https://id.example.com', audience: 'gsp' },
      },
      kubeconfig: { signingKey: { existingSecret: 'gsp-signing' } },
      flags: {
        provider: 'ofrep',
        ofrep: { url: 'http://flipt.flipt.svc:8080', bearerToken: { existingSecret: 'gsp-ofrep' } },
      },
      console: {
        publicUrl: 'https://platform.example.com/console/',
        oidc: { clientId: 'gsp-console', clientSecret: { existingSecret: 'gsp-console' } },
      },
      trustProxy: '10.0.0.0/8',
      audit,
    },
    clusterProxy: {
      replicaCount: 3,
      publicUrl: 'https://kubectl.example.com',
      tls: { existingSecret: 'gsp-proxy-tls', embedCa: true },
      tunnelTls: { existingSecret: 'gsp-tunnel-tls' },
    },
  },
  'control-plane': {
    auth: {
      modes: ['apikey', 'oidc', 'basic'],
      basic: { user: 'admin', existingSecret: 'cp-basic' },
      oidc: {
        issuerUrl: 'https://id.example.com',
        clientId: 'gsp-cp',
        roleMapping: 'ops=operator,fleet=fleet-operator',
      },
      apiKeys: { maxTtl: '90d' },
    },
    customRoles: {
      'fleet-operator': {
        inherits: ['viewer'],
        permissions: [{ resource: 'fleets', verbs: ['update'], namespaces: ['games'] }],
      },
    },
    redis: { existingSecret: 'gsp-redis' },
    trustProxy: '10.0.0.0/8',
    audit: { ...audit, spool: { maxBytes: 1024 * 1024 * 1024, full: 'block' } },
  },
  'tunnel-agent': {
    proxyTunnelUrl: 'https://kubectl.example.com:8444',
    clusterId: 'c-0123456789',
    agentToken: { existingSecret: 'agent-token' },
    proxyCa: { existingSecret: 'proxy-ca' },
  },
};

/** The game-server panel's OIDC client, its secret in a Secret (it needs a public URL, given or derived). */
export const panelSignIn = { oidc: { clientId: 'gsp-panel', clientSecret: { existingSecret: 'gsp-panel' } } };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** `base` with `patch` laid over it: objects merged key by key (as helm merges values files), the rest replaced. */
export function merged(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const under = out[key];
    out[key] = isObject(under) && isObject(value) ? merged(under, value) : value;
  }
  return out;
}

const anywhere = { cidrs: ['0.0.0.0/0'] };
const monitoring = {
  serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
  prometheusRule: { enabled: true },
};

/**
 * The full installations exposed and hardened: an Ingress with TLS from cert-manager (the console's and the panel's
 * public URLs derived from its host), NetworkPolicies with every destination the configuration needs, and the
 * Prometheus Operator's objects. Topology spread is on by default.
 */
export const hardened: Record<string, Record<string, unknown>> = {
  platform: merged(full.platform!, {
    apiServer: {
      console: { publicUrl: '' },
      ingress: {
        enabled: true,
        ingressClassName: 'nginx',
        hostname: 'platform.example.com',
        tls: true,
        annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
      },
    },
    networkPolicy: {
      enabled: true,
      egress: {
        postgres: { cidrs: ['10.20.0.0/16'] },
        redis: { peers: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'redis' } } }] },
        oidc: anywhere,
        ofrep: { peers: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'flipt' } } }] },
        audit: anywhere,
      },
    },
    monitoring,
  }),
  'control-plane': merged(full['control-plane']!, {
    panel: panelSignIn,
    ingress: {
      enabled: true,
      ingressClassName: 'nginx',
      hostname: 'cp.example.com',
      tls: true,
      annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
    },
    networkPolicy: {
      enabled: true,
      egress: {
        kubernetesApi: { cidrs: ['172.18.0.2/32'] },
        redis: { cidrs: ['10.30.0.0/16'] },
        oidc: anywhere,
        audit: anywhere,
      },
    },
    monitoring,
  }),
  'tunnel-agent': merged(full['tunnel-agent']!, {
    networkPolicy: { enabled: true, egress: { kubernetesApi: { cidrs: ['172.18.0.2/32'] }, proxy: anywhere } },
    monitoring,
  }),
};
