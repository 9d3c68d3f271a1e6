import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import t from 'tap';
import fc from 'fast-check';
import { operationsOf, problemWithAnswer, requests, send, sendHttp2 } from '@gsp/service-kit/testing';
import type { FuzzRequest, FuzzResponse, OpenApiDocument } from '@gsp/service-kit/testing';
import { Tally } from '@gsp/service-kit/testing/tally';
import { registerCluster } from '@gsp/api-server/testing';
import { ORG, startStack, until } from './stack.js';

/** How many requests one run generates per port; FUZZ_RUNS raises it for a longer hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);

/** Paths below `/clusters/{clusterId}/` that kube-lite serves, so that admitted requests reach real handlers. */
const KUBE_PATHS = [
  'api',
  'apis',
  'version',
  'api/v1',
  'api/v1/namespaces',
  'api/v1/namespaces/default/configmaps',
  'api/v1/namespaces/default/configmaps/fuzz',
  'api/v1/namespaces/default/pods',
  'api/v1/namespaces/default/pods/game/exec',
  'apis/agones.dev/v1/namespaces/default/gameservers',
  'apis/agones.dev/v1/namespaces/default/fleets/arena/scale',
];

/** A Kubernetes `Status` whose code is the answer's status, as kubectl reads a refusal. */
function isStatus(res: FuzzResponse): boolean {
  if (res.headers['content-type'] !== 'application/json') return false;
  try {
    const body = JSON.parse(res.body) as { kind?: unknown; code?: unknown };
    return body.kind === 'Status' && body.code === res.status;
  } catch {
    return false;
  }
}

/**
 * What is wrong with an answer of the kubectl port. Paths under /clusters/ speak Kubernetes to
 * kubectl: the proxy's own refusals are `Status` bodies with a Warning header (kubectl's discovery
 * client prints only that), and a request the proxy forwarded gets the cluster's answer as the
 * cluster gave it (a `Status`, or kube-apiserver's plain-text 404). Every other path, and a request
 * that is not valid HTTP, is answered problem+json.
 */
function kubectlPortProblem(req: FuzzRequest, res: FuzzResponse, forwarded: boolean): string | undefined {
  // A request line with a byte HTTP does not allow (`ñ` unencoded) is refused by the server before any routing.
  if (!req.path.startsWith('/clusters/') || !/^[\x21-\x7e]*$/.test(req.path)) return problemWithAnswer(res);
  if (res.status >= 500) return `answered ${res.status}: ${res.body.slice(0, 300)}`;
  if (res.status < 400 || forwarded) return undefined;
  if (!isStatus(res))
    return `refused ${res.status} as ${String(res.headers['content-type'])}, not a Status: ${res.body.slice(0, 300)}`;
  if (!String(res.headers.warning ?? '').startsWith('299 - ')) return `refused ${res.status} without a Warning header`;
  return undefined;
}

// Healthy: two clusters whose agents are connected, so that a 502, 503 or 504 is a fault too.
const stack = await startStack(t, { clusters: 2 });
for (const cluster of stack.clusters)
  await until('the agents to connect', () => (cluster.agent.connected ? true : undefined), 10_000);

t.test(
  'every route of the kubectl port answers generated bad input without a 5xx, refusals as Status or problem+json',
  async (t) => {
    const ids = stack.clusters.map((c) => c.id);
    const tokens = new Map<string, string>();
    for (const id of ids) tokens.set(id, await stack.proxyToken(id));
    const agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: stack.ca });
    t.teardown(() => agent.destroy());

    const described = await send(
      stack.proxyUrl,
      { method: 'GET', path: '/openapi.json', headers: {}, route: 'GET /openapi.json' },
      agent,
    );
    t.equal(described.status, 200);
    const ops = operationsOf(JSON.parse(described.body) as OpenApiDocument);
    t.ok(ops.length >= 8, `${ops.length} operations in /openapi.json`);
    t.ok(
      ops.some((op) => op.path === '/clusters/{clusterId}/{path}'),
      'the kubectl path is described',
    );

    const credentials = [...tokens.values()].map((token) => ({ authorization: `Bearer ${token}` }));
    const clusterOf = (req: FuzzRequest): string | undefined =>
      ids.find((id) => req.headers.authorization === `Bearer ${tokens.get(id)}`);
    // A request carrying the token of the cluster its path names is the one the proxy forwards.
    const forwarded = (req: FuzzRequest): boolean => {
      const id = /^\/clusters\/([^/?]+)\//.exec(req.path)?.[1];
      return id !== undefined && clusterOf(req) === id;
    };
    // Half the requests name the cluster their token was issued for, so that many reach a cluster.
    const generated = fc
      .tuple(requests(ops, { credentials, plausibleFor: { clusterId: ids, path: KUBE_PATHS } }), fc.boolean())
      .map(([req, aimed]) => {
        const id = clusterOf(req);
        return aimed && id !== undefined
          ? { ...req, path: req.path.replace(/^\/clusters\/[^/?]*\//, `/clusters/${id}/`) }
          : req;
      });
    const direct = new http.Agent({ keepAlive: true, maxSockets: 4 });
    t.teardown(() => direct.destroy());
    /**
     * The same request sent straight to the cluster's kube-lite: a 5xx it gives itself is the
     * cluster's answer, which the proxy rightly passes on (kube-lite's fault, not the proxy's).
     */
    const clusterAnswers = async (req: FuzzRequest, res: FuzzResponse): Promise<boolean> => {
      const id = /^\/clusters\/([^/?]+)/.exec(req.path)?.[1];
      const kube = stack.clusters.find((c) => c.id === id)?.kube;
      if (kube === undefined) return false;
      const { authorization: _, ...headers } = req.headers;
      const again = await send(kube.url, { ...req, path: req.path.slice(`/clusters/${id}`.length), headers }, direct);
      return again.status === res.status && again.body === res.body;
    };
    const clusterFaults: string[] = [];
    const tally = new Tally();
    let reachedCluster = 0;
    const startedAt = Date.now();
    await fc.assert(
      fc.asyncProperty(generated, async (req) => {
        const res = await send(stack.proxyUrl, req, agent);
        tally.count(res.status);
        if (forwarded(req)) reachedCluster += 1;
        if (res.status >= 500 && forwarded(req) && (await clusterAnswers(req, res))) {
          const path = req.path.replace(/^\/clusters\/[^/]+/, '').split('?')[0] as string;
          clusterFaults.push(`${req.method} ${path.slice(0, 60)}: ${res.status} ${res.body.slice(0, 160)}`);
          return;
        }
        const wrong = kubectlPortProblem(req, res, forwarded(req));
        if (wrong) throw new Error(`${req.method} ${req.path} (${req.route}) ${wrong}`);
      }),
      { numRuns: RUNS, includeErrorInReport: true },
    );
    const took = Date.now() - startedAt;
    t.comment(
      `${tally.sent} generated requests in ${took} ms over ${ops.length} operations, ` +
        `${reachedCluster} forwarded to a cluster; statuses ${tally}`,
    );
    for (const fault of new Set(clusterFaults)) t.comment(`kube-lite itself answered (passed through): ${fault}`);
    t.ok(reachedCluster > 0, 'some requests reached a cluster');
    t.ok(
      [...tally.statuses.keys()].some((s) => s < 300),
      'some requests went all the way through',
    );
  },
);

/** The Connect end-of-stream error code in a streamed answer's last envelope, if it holds one. */
function endStreamError(body: Buffer): string | undefined {
  let at = 0;
  let code: string | undefined;
  while (at + 5 <= body.length) {
    const flags = body[at] as number;
    const length = body.readUInt32BE(at + 1);
    const payload = body.subarray(at + 5, at + 5 + length);
    // Flag 0b10 marks the end-of-stream message: JSON, with `error` when the RPC failed.
    if ((flags & 0b10) !== 0)
      code = (JSON.parse(payload.toString('utf8')) as { error?: { code?: string } }).error?.code;
    at += 5 + length;
  }
  return code;
}

/**
 * What is wrong with an answer of the tunnel port: a 5xx, a 4xx that is not problem+json, or an
 * RPC that ended (`code`) with an error Connect uses for a server fault (`internal`, `unknown`, `data_loss`).
 */
function tunnelPortProblem(res: FuzzResponse, code: string | undefined): string | undefined {
  const wrong = problemWithAnswer(res);
  if (wrong) return wrong;
  return code === 'internal' || code === 'unknown' || code === 'data_loss'
    ? `the RPC ended with ${code}: ${res.body.slice(-300)}`
    : undefined;
}

t.test(
  'every route of the tunnel port answers generated bad input without a 5xx or a server fault, ' +
    'the rest as problem+json',
  async (t) => {
    // A cluster of its own whose agent never runs: a fuzzed connection with its token replaces no real tunnel.
    const fuzzed = await registerCluster(stack.api.app, ORG, 'fuzzed');
    const session = http2.connect(stack.tunnelUrl);
    session.on('error', () => undefined);
    t.teardown(() => session.close());

    const described = await sendHttp2(session, {
      method: 'GET',
      path: '/openapi.json',
      headers: {},
      route: 'GET /openapi.json',
    });
    t.equal(described.status, 200);
    const ops = operationsOf(JSON.parse(described.body) as OpenApiDocument);
    t.equal(ops.length, 2, 'the RPC and the document are described');

    const authorization = `Bearer ${fuzzed.agentToken}`;
    const credentials: Record<string, string>[] = [{ authorization }, { authorization, 'x-gsp-cluster-id': 'another' }];
    // The generator's media types are those of JSON APIs; an agent's own is added so that requests reach the RPC.
    const connectTypes = fc.constantFrom(undefined, 'application/connect+proto', 'application/connect+json');
    const generated = fc
      .tuple(requests(ops, { credentials }), connectTypes)
      .map(([req, type]) => (type === undefined ? req : { ...req, headers: { ...req.headers, 'content-type': type } }));
    const tally = new Tally();
    const endings = new Map<string, number>();
    const startedAt = Date.now();
    await fc.assert(
      fc.asyncProperty(generated, async (req) => {
        const res = await sendHttp2(session, req);
        tally.count(res.status);
        const streamed = res.status === 200 && String(res.headers['content-type']).startsWith('application/connect+');
        const code = streamed ? (endStreamError(Buffer.from(res.body, 'latin1')) ?? 'ok') : undefined;
        if (code !== undefined) endings.set(code, (endings.get(code) ?? 0) + 1);
        const wrong = tunnelPortProblem(res, code);
        if (wrong) throw new Error(`${req.method} ${req.path} (${req.route}) ${JSON.stringify(req.headers)} ${wrong}`);
      }),
      { numRuns: RUNS, includeErrorInReport: true },
    );
    const ended = [...endings].map(([c, n]) => `${c}: ${n}`).join(', ');
    t.comment(
      `${tally.sent} generated requests in ${Date.now() - startedAt} ms over ${ops.length} operations; ` +
        `statuses ${tally}; RPCs ended ${ended}`,
    );
    t.ok(tally.statuses.has(200), 'some requests reached the RPC');
  },
);
